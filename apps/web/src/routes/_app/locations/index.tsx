import { Anchor, Badge, Button, Group, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { LOCATIONS_PAGE_SIZE, SEARCH_DEBOUNCE_MS } from '@switchyard/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { z } from 'zod';
import { Pager } from '../../../components/pager.tsx';
import { QueryError } from '../../../components/query-error.tsx';
import { retryUnlessRefused } from '../../../lib/query-client.ts';
import { type LocationsListQuery, locationKeys, locationsRest, type WireLocation } from './-components/location-api.ts';

/** The list's state lives in the address, so a reload or a shared link shows the same page. */
const LocationsSearch = z.object({
  search: z.string().trim().max(200).optional().catch(undefined),
  offset: z.coerce.number().int().min(0).optional().catch(undefined),
});

export const Route = createFileRoute('/_app/locations/')({
  validateSearch: LocationsSearch,
  component: LocationsPage,
});

function LocationsPage() {
  const navigate = useNavigate({ from: Route.fullPath });
  const { search, offset = 0 } = Route.useSearch();
  const [text, setText] = useState(search ?? '');
  const applySearch = useDebouncedCallback((value: string) => {
    // A new search starts at its first page.
    void navigate({ search: { search: value.trim() || undefined }, replace: true });
  }, SEARCH_DEBOUNCE_MS);
  // SPEC §7: GET locations, sorted by store_id ascending, with the search.
  const query: LocationsListQuery = {
    sort: 'store_id',
    order: 'ASC',
    limit: LOCATIONS_PAGE_SIZE,
    offset,
    ...(search ? { search } : {}),
  };
  const locations = useQuery({
    queryKey: locationKeys.list(query),
    queryFn: () => locationsRest.list(query),
    placeholderData: keepPreviousData,
    retry: retryUnlessRefused,
  });

  return (
    <Stack gap="lg" maw={1200}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1}>Locations</Title>
          <Text c="dimmed" size="sm">
            Your stores and warehouses. Each one is a point-of-sale store; channel locations mapped to it sell its
            stock.
          </Text>
        </Stack>
        <Button renderRoot={(props) => <Link {...props} to="/locations/create" />}>Add location</Button>
      </Group>
      <TextInput
        type="search"
        label="Search locations"
        placeholder="Name, store id or city"
        value={text}
        onChange={(event) => {
          setText(event.currentTarget.value);
          applySearch(event.currentTarget.value);
        }}
        maw={420}
      />
      {locations.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading locations">
          {[0, 1, 2, 3].map((row) => (
            <Skeleton key={row} height={32} />
          ))}
        </Stack>
      ) : locations.isError ? (
        <QueryError
          title="Could not load your locations"
          error={locations.error}
          onRetry={locations.refetch}
          retrying={locations.isFetching}
        />
      ) : locations.data.results.length === 0 ? (
        search ? (
          <Text c="dimmed">No location matches “{search}”.</Text>
        ) : offset > 0 ? (
          <Text c="dimmed">
            This page is empty.{' '}
            <Anchor component="button" type="button" onClick={() => void navigate({ search: {} })}>
              Back to the first page
            </Anchor>
          </Text>
        ) : (
          <Text c="dimmed">
            No locations yet. Add your stores and warehouses so their stock can be sold on your channels.
          </Text>
        )
      ) : (
        <Stack gap="sm">
          <LocationTable locations={locations.data.results} busy={locations.isFetching} />
          <Pager
            label="Locations"
            total={locations.data.total}
            limit={LOCATIONS_PAGE_SIZE}
            offset={offset}
            onChange={(next) => void navigate({ search: (prev) => ({ ...prev, offset: next || undefined }) })}
            disabled={locations.isFetching}
          />
        </Stack>
      )}
    </Stack>
  );
}

function LocationTable({ locations, busy }: { locations: WireLocation[]; busy: boolean }) {
  const navigate = useNavigate();
  const open = (id: string) => void navigate({ to: '/locations/$id', params: { id } });
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped highlightOnHover aria-label="Locations" aria-busy={busy} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Name</Table.Th>
            <Table.Th scope="col">Store id</Table.Th>
            <Table.Th scope="col">City</Table.Th>
            <Table.Th scope="col">Fulfilment</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Priority</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {locations.map((location) => (
            // The whole row opens the location; the name is its link for the keyboard.
            <Table.Tr key={location.id} onClick={() => open(location.id)} style={{ cursor: 'pointer' }}>
              <Table.Td>
                <Anchor
                  fw={500}
                  onClick={(event) => event.stopPropagation()}
                  renderRoot={(props) => <Link {...props} to="/locations/$id" params={{ id: location.id }} />}
                >
                  {location.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {location.store_id}
                </Text>
              </Table.Td>
              <Table.Td>
                {location.address.city ? (
                  location.address.city
                ) : (
                  <Text span c="dimmed" size="sm">
                    —
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {location.ships ? (
                    <Badge variant="light" color="blue">
                      Ships
                    </Badge>
                  ) : null}
                  {location.pickup ? (
                    <Badge variant="light" color="grape">
                      Pickup
                    </Badge>
                  ) : null}
                  {!location.ships && !location.pickup ? (
                    <Text span c="dimmed" size="sm">
                      None
                    </Text>
                  ) : null}
                </Group>
              </Table.Td>
              <Table.Td>
                {location.enabled ? (
                  <Badge variant="light" color="teal">
                    Enabled
                  </Badge>
                ) : (
                  <Badge variant="light" color="gray">
                    Disabled
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{location.priority}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
