import {
  ActionIcon,
  Alert,
  Button,
  Card,
  FileButton,
  Group,
  Image,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Tooltip,
} from '@mantine/core';
import { MAX_IMAGES_PER_PRODUCT, UPLOAD_IMAGE_TYPES, UPLOAD_MAX_BYTES, type UploadedFile } from '@switchyard/contracts';
import { useRef, useState } from 'react';
import { api } from '../../../../lib/api.ts';
import { errorMessage } from '../../../../lib/errors.ts';

/** v1 `POST files/upload`: one image as multipart field `file`, with the upload's progress (0–100). */
export function uploadImage(file: File, onProgress: (percent: number) => void): Promise<UploadedFile> {
  const body = new FormData();
  body.append('file', file);
  return api.v1.post<UploadedFile>('files/upload', body, {
    onUploadProgress: (event) => {
      if (event.total) onProgress(Math.round((event.loaded / event.total) * 100));
    },
  });
}

const TYPE_NAMES = 'PNG, JPEG, WebP or GIF';
const MAX_MB = UPLOAD_MAX_BYTES / (1024 * 1024);

/** Why a file cannot be uploaded, before sending it (the server checks the content again). */
export function imageProblem(file: File): string | undefined {
  if (!(UPLOAD_IMAGE_TYPES as readonly string[]).includes(file.type))
    return `${file.name} is not an image we take (${TYPE_NAMES}).`;
  if (file.size > UPLOAD_MAX_BYTES) return `${file.name} is larger than ${MAX_MB} MB.`;
  return undefined;
}

interface Upload {
  key: number;
  name: string;
  percent: number;
}

export interface ImageUploaderProps {
  images: string[];
  onChange: (images: string[]) => void;
  /** Uploads in flight; the form waits for them before saving. */
  onBusyChange?: (busy: boolean) => void;
  error?: string;
}

/** The product's images: upload (with progress), reorder and remove. The first one is the main image. */
export function ImageUploader({ images, onChange, onBusyChange, error }: ImageUploaderProps) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [problems, setProblems] = useState<string[]>([]);
  const nextKey = useRef(0);
  // Uploads finish in any order; each adds to the latest list, not the one seen when it started.
  const latest = useRef(images);
  latest.current = images;
  const inFlight = useRef(0);

  const setBusy = (delta: number) => {
    inFlight.current += delta;
    onBusyChange?.(inFlight.current > 0);
  };

  const add = (files: File[]) => {
    const found: string[] = [];
    const room = MAX_IMAGES_PER_PRODUCT - latest.current.length - inFlight.current;
    const accepted = files.filter((file) => {
      const problem = imageProblem(file);
      if (problem) found.push(problem);
      return !problem;
    });
    if (accepted.length > room) found.push(`A product has at most ${MAX_IMAGES_PER_PRODUCT} images.`);
    setProblems(found);
    for (const file of accepted.slice(0, Math.max(0, room))) {
      const key = nextKey.current++;
      setUploads((list) => [...list, { key, name: file.name, percent: 0 }]);
      setBusy(1);
      uploadImage(file, (percent) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, percent } : u))))
        .then((uploaded) => {
          latest.current = [...latest.current, uploaded.url];
          onChange(latest.current);
        })
        .catch((err: unknown) => setProblems((list) => [...list, `${file.name}: ${errorMessage(err)}`]))
        .finally(() => {
          setUploads((list) => list.filter((u) => u.key !== key));
          setBusy(-1);
        });
    }
  };

  const move = (from: number, to: number) => {
    const next = [...images];
    const [item] = next.splice(from, 1);
    if (item === undefined) return;
    next.splice(to, 0, item);
    onChange(next);
  };

  return (
    <Stack gap="sm">
      <Group gap="sm">
        <FileButton onChange={add} accept={UPLOAD_IMAGE_TYPES.join(',')} multiple>
          {(props) => (
            <Button variant="default" {...props}>
              Upload images
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          {TYPE_NAMES}, up to {MAX_MB} MB each. The first image is the main one.
        </Text>
      </Group>
      {problems.length > 0 || error ? (
        <Alert color="red" variant="light" role="alert" title="Some images were not added">
          <Stack gap={2}>
            {error ? <Text size="sm">{error}</Text> : null}
            {problems.map((problem) => (
              <Text key={problem} size="sm">
                {problem}
              </Text>
            ))}
          </Stack>
        </Alert>
      ) : null}
      {uploads.map((upload) => (
        <Stack key={upload.key} gap={2}>
          <Text size="xs">Uploading {upload.name}…</Text>
          <Progress value={upload.percent} aria-label={`Uploading ${upload.name}`} size="sm" />
        </Stack>
      ))}
      {images.length > 0 ? (
        <SimpleGrid cols={{ base: 2, sm: 4, md: 6 }} spacing="sm" role="list" aria-label="Images">
          {images.map((url, index) => (
            <Card key={url} withBorder padding={4} role="listitem" aria-label={`Image ${index + 1}`}>
              <Image src={url} alt={`Image ${index + 1}`} h={96} fit="contain" />
              <Group gap={2} justify="center" mt={4} wrap="nowrap">
                <Tooltip label="Move earlier">
                  <ActionIcon
                    variant="subtle"
                    size="sm"
                    aria-label={`Move image ${index + 1} earlier`}
                    disabled={index === 0}
                    onClick={() => move(index, index - 1)}
                  >
                    ←
                  </ActionIcon>
                </Tooltip>
                <Tooltip label="Move later">
                  <ActionIcon
                    variant="subtle"
                    size="sm"
                    aria-label={`Move image ${index + 1} later`}
                    disabled={index === images.length - 1}
                    onClick={() => move(index, index + 1)}
                  >
                    →
                  </ActionIcon>
                </Tooltip>
                <Tooltip label="Remove">
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    size="sm"
                    aria-label={`Remove image ${index + 1}`}
                    onClick={() => onChange(images.filter((_, i) => i !== index))}
                  >
                    ×
                  </ActionIcon>
                </Tooltip>
              </Group>
            </Card>
          ))}
        </SimpleGrid>
      ) : (
        <Text size="sm" c="dimmed">
          No images yet.
        </Text>
      )}
    </Stack>
  );
}
