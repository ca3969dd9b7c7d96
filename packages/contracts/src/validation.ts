import type { z } from 'zod';

/**
 * SPEC §5: generic validation messages ("… is a required field") for forms whose rules carry no message of
 * their own. Given to a parse as its error map (`schema.safeParse(values, { error: genericIssueMessage })`),
 * so a schema's own message (the registration form's "* Required", say) still wins.
 */

/** `orderWaitHours` → "Order wait hours", `store_id` → "Store id": the field's name as a reader says it. */
export function fieldLabel(path: readonly PropertyKey[] | undefined): string {
  const key = [...(path ?? [])].reverse().find((p) => typeof p === 'string') as string | undefined;
  if (!key) return 'This field';
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : 'This field';
}

type Issue = Parameters<z.core.$ZodErrorMap>[0];

const isBlank = (input: unknown) =>
  input === undefined || input === null || (typeof input === 'string' && input.trim() === '');

export function genericIssueMessage(issue: Issue): string | undefined {
  const field = fieldLabel(issue.path);
  const input: unknown = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      if (isBlank(input)) return `${field} is a required field`;
      if (issue.expected === 'number' || issue.expected === 'int') return `${field} must be a number`;
      return `${field} must be a \`${issue.expected}\` type`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') {
        return min <= 1 || isBlank(input)
          ? `${field} is a required field`
          : `${field} must be at least ${min} characters`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return min <= 1 ? `${field} is a required field` : `${field} must have at least ${min} items`;
      }
      return issue.inclusive === false
        ? `${field} must be greater than ${min}`
        : `${field} must be greater than or equal to ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `${field} must be at most ${max} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${field} must have at most ${max} items`;
      return issue.inclusive === false
        ? `${field} must be less than ${max}`
        : `${field} must be less than or equal to ${max}`;
    }
    case 'invalid_format':
      if (isBlank(input)) return `${field} is a required field`;
      return issue.format === 'email' ? `${field} must be a valid email` : `${field} must be a valid ${issue.format}`;
    case 'invalid_value':
      return isBlank(input)
        ? `${field} is a required field`
        : `${field} must be one of the following values: ${issue.values.map(String).join(', ')}`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${String(issue.divisor)}`;
    default:
      return undefined;
  }
}
