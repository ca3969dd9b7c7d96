import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldLabel, genericIssueMessage } from './validation.ts';

const messages = (schema: z.ZodType, value: unknown) =>
  schema.safeParse(value, { error: genericIssueMessage }).error?.issues.map((i) => i.message) ?? [];

describe('generic validation messages (SPEC §5)', () => {
  it('names the field and says it is required', () => {
    const schema = z.object({
      orderWaitHours: z.number(),
      store_id: z.string().trim().min(1),
      tags: z.array(z.string()).min(1),
    });
    expect(messages(schema, { store_id: '  ', tags: [] })).toEqual([
      'Order wait hours is a required field',
      'Store id is a required field',
      'Tags is a required field',
    ]);
  });

  it('words ranges, lengths and formats the same way', () => {
    const schema = z.object({
      hour: z.number().int().min(0).max(23),
      name: z.string().min(3).max(5),
      email: z.email(),
      kind: z.enum(['a', 'b']),
    });
    expect(messages(schema, { hour: 24, name: 'ab', email: 'nope', kind: 'c' })).toEqual([
      'Hour must be less than or equal to 23',
      'Name must be at least 3 characters',
      'Email must be a valid email',
      'Kind must be one of the following values: a, b',
    ]);
    expect(messages(z.object({ n: z.number() }), { n: 'x' })).toEqual(['N must be a number']);
  });

  it('leaves a schema’s own message alone', () => {
    expect(messages(z.object({ firstname: z.string().min(1, '* Required') }), { firstname: '' })).toEqual([
      '* Required',
    ]);
  });

  it('labels nested and unnamed paths', () => {
    expect(fieldLabel(['methodMap', 0, 'carrierCode'])).toBe('Carrier code');
    expect(fieldLabel([])).toBe('This field');
  });
});
