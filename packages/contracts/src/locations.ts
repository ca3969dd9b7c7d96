import { z } from 'zod';
import { ChannelType } from './channels.ts';
import { Location, LocationAddress, LocationInput } from './inventory.ts';

/**
 * Locations (issue 6) beyond the shared shapes in inventory.ts: the list answer and the screen's form.
 * Calls: v1/v2 `GET locations` → LocationList; `GET locations/{id}`, `POST locations`, `PATCH locations/{id}`,
 * `DELETE locations/{id}` → { id }; tRPC `locations.list/get/create/update/delete`.
 */

export const LocationList = z.object({
  results: z.array(Location),
  total: z.number().int(),
});
export type LocationList = z.infer<typeof LocationList>;

export const DeletedLocation = z.object({ id: z.string() });
export type DeletedLocation = z.infer<typeof DeletedLocation>;

/** The locations screen's page size. */
export const LOCATIONS_PAGE_SIZE = 25;

const optionalText = (max: number) => z.string().trim().max(max, `Should be at most ${max} characters`);

/** A coordinate typed as decimal degrees ("45.52", "-122.68"); empty: none. */
const coordinate = (min: number, max: number) =>
  z
    .string()
    .trim()
    .refine((v) => v === '' || /^[-+]?\d{1,3}(\.\d{1,10})?$/.test(v), 'Enter decimal degrees, such as 45.52')
    .refine(
      (v) => v === '' || Number.isNaN(Number(v)) || (Number(v) >= min && Number(v) <= max),
      `Should be between ${min} and ${max}`,
    );

export const LOCATION_COORDINATE_MESSAGES = {
  both: 'Enter both the latitude and the longitude, or neither',
} as const;

/**
 * The create/edit form: LocationInput with the address flattened into fields, so each input shows its own
 * message. `toLocationInput` turns it into what the API takes.
 */
export const LocationForm = z
  .object({
    name: LocationInput.shape.name,
    store_id: LocationInput.shape.store_id,
    enabled: z.boolean(),
    ships: z.boolean(),
    pickup: z.boolean(),
    priority: z.preprocess(
      (v) => (v === '' || v === null ? undefined : v),
      z
        .number({ error: '* Required' })
        .int('Should be a whole number')
        .min(0, 'Should be 0 or more')
        .max(1000, 'Should be 1000 or less'),
    ),
    address1: optionalText(200),
    address2: optionalText(200),
    city: optionalText(100),
    province: optionalText(100),
    zip: optionalText(20),
    country: optionalText(100),
    phone: optionalText(40),
    /** Routing's distances (issue 14); both empty: placed from the postal code. */
    latitude: coordinate(-90, 90),
    longitude: coordinate(-180, 180),
  })
  .superRefine((form, ctx) => {
    const hasLatitude = form.latitude !== '';
    if (hasLatitude !== (form.longitude !== ''))
      ctx.addIssue({
        code: 'custom',
        message: LOCATION_COORDINATE_MESSAGES.both,
        path: [hasLatitude ? 'longitude' : 'latitude'],
      });
  });
export type LocationForm = z.input<typeof LocationForm>;

export const LOCATION_ADDRESS_FIELDS = ['address1', 'address2', 'city', 'province', 'zip', 'country', 'phone'] as const;

export const EMPTY_LOCATION_FORM: LocationForm = {
  name: '',
  store_id: '',
  enabled: true,
  ships: true,
  pickup: false,
  priority: 0,
  address1: '',
  address2: '',
  city: '',
  province: '',
  zip: '',
  country: '',
  phone: '',
  latitude: '',
  longitude: '',
};

/** A saved location as the form edits it. */
export function locationToForm(location: {
  name: string;
  store_id: string;
  enabled: boolean;
  ships: boolean;
  pickup: boolean;
  priority: number;
  address: LocationAddress;
  latitude?: number | null;
  longitude?: number | null;
}): LocationForm {
  const form: LocationForm = {
    ...EMPTY_LOCATION_FORM,
    name: location.name,
    store_id: location.store_id,
    enabled: location.enabled,
    ships: location.ships,
    pickup: location.pickup,
    priority: location.priority,
    latitude: location.latitude === null || location.latitude === undefined ? '' : String(location.latitude),
    longitude: location.longitude === null || location.longitude === undefined ? '' : String(location.longitude),
  };
  for (const field of LOCATION_ADDRESS_FIELDS) form[field] = location.address[field] ?? '';
  return form;
}

/** The parsed form as the API's input; an empty address field is stored as null. */
export function formToLocationInput(form: z.output<typeof LocationForm>) {
  const address: LocationAddress = {};
  for (const field of LOCATION_ADDRESS_FIELDS) address[field] = form[field] ? form[field] : null;
  return {
    name: form.name,
    store_id: form.store_id,
    enabled: form.enabled,
    ships: form.ships,
    pickup: form.pickup,
    priority: form.priority,
    address,
    latitude: form.latitude === '' ? null : Number(form.latitude),
    longitude: form.longitude === '' ? null : Number(form.longitude),
  };
}

// ------------------------------------------------------------------ locations from a channel (issue 19)

/**
 * Where a live channel's locations stand against ours (tRPC `locations.mappingStatus`), from the saved
 * location map: `mapped` channel locations name one of our locations; `unmapped` ones feed the channel but
 * name none, so their stock is not imported. `offer`: a Shopify or BigCommerce channel none of whose
 * locations maps to ours, which can make our locations from its own.
 */
export const ChannelMappingStatus = z.object({
  channelId: z.string(),
  type: ChannelType,
  name: z.string(),
  mapped: z.number().int(),
  unmapped: z.number().int(),
  offer: z.boolean(),
});
export type ChannelMappingStatus = z.infer<typeof ChannelMappingStatus>;

/** One location of ours to make from a channel location: what the channel says, the store id editable. */
export const ChannelLocationDraft = z.object({
  externalLocationId: z.string().min(1).max(300),
  name: LocationInput.shape.name,
  store_id: LocationInput.shape.store_id,
  ships: z.boolean(),
  pickup: z.boolean(),
  address: LocationAddress,
});
export type ChannelLocationDraft = z.infer<typeof ChannelLocationDraft>;

/** tRPC `locations.channelDrafts` ({ channelId }): the channel's unmapped active locations as drafts. */
export const ChannelLocationDrafts = z.object({
  channelId: z.string(),
  drafts: z.array(ChannelLocationDraft),
});
export type ChannelLocationDrafts = z.infer<typeof ChannelLocationDrafts>;

/** tRPC `locations.createFromChannel`: makes the locations, maps the channel to them, queues an import. */
export const CreateLocationsFromChannelInput = z.object({
  channelId: z.string().min(1),
  locations: z.array(ChannelLocationDraft).min(1, 'Choose at least one location').max(200),
});
export type CreateLocationsFromChannelInput = z.infer<typeof CreateLocationsFromChannelInput>;

export const CreatedLocationsFromChannel = z.object({
  locations: z.array(Location),
  /** The catalog import that takes the channel's stock; null when none could be queued. */
  syncId: z.number().int().nullable(),
});
export type CreatedLocationsFromChannel = z.infer<typeof CreatedLocationsFromChannel>;

/** What an import (and the products screen) says of channel locations whose stock has nowhere to land. */
export const unmappedStockText = (count: number, label: string) =>
  `Stock at ${count} ${label} location${count === 1 ? '' : 's'} was not imported: map them`;

/**
 * A store id suggested for a location made from a channel's: its name in lower case, words joined by
 * hyphens, unique among `taken` (a number appended).
 */
export function suggestStoreId(name: string, taken: Set<string>): string {
  const base =
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 90) || 'location';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}
