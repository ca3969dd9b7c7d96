import type { ExportPath } from '@switchyard/contracts';
import { apiUrl, http } from '../../../../lib/api.ts';

/** The file name the server gave (Content-Disposition), else one made from the path. */
function filenameOf(disposition: unknown, path: string): string {
  const match = typeof disposition === 'string' ? /filename="?([^";]+)"?/.exec(disposition) : null;
  return match?.[1] ?? `${path.split('/').pop() ?? 'export'}.csv`;
}

/**
 * A failed download's body arrives as a Blob (or text), not parsed: read it back into the `{ code, message }`
 * the error helper shows.
 */
async function readErrorBody(err: unknown): Promise<never> {
  const response = (err as { response?: { data?: unknown } }).response;
  if (response) {
    const text = response.data instanceof Blob ? await response.data.text() : response.data;
    if (typeof text === 'string') {
      try {
        response.data = JSON.parse(text);
      } catch {
        response.data = text;
      }
    }
  }
  throw err;
}

/** Hands a file to the browser as a download (an object URL clicked through a link). */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file over; the URL can go once this task is done.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Downloads a frontend export with the signed-in user's token (a plain link could not carry it) and saves it.
 * `onProgress` gets the bytes received so far. Answers the file name.
 */
export async function downloadExport(path: ExportPath, onProgress?: (bytes: number) => void): Promise<string> {
  const response = await http
    .request<Blob | string>({
      baseURL: apiUrl('frontend'),
      url: path,
      method: 'GET',
      responseType: 'blob',
      headers: { Accept: 'text/csv, application/json' },
      onDownloadProgress: (event) => onProgress?.(event.loaded),
    })
    .catch(readErrorBody);
  const filename = filenameOf(response.headers['content-disposition'], path);
  const blob = response.data instanceof Blob ? response.data : new Blob([response.data], { type: 'text/csv' });
  saveFile(blob, filename);
  return filename;
}
