import { genericIssueMessage } from '@switchyard/contracts';
import { type ChangeEvent, type FormEvent, useCallback, useState } from 'react';
import type { z } from 'zod';

type Values = Record<string, unknown>;
export type FieldErrors<T> = Partial<Record<keyof T & string, string>>;

/** The first message per top-level field of a failed parse. */
export function fieldErrors<T extends Values>(error: z.ZodError): FieldErrors<T> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && !(field in errors)) errors[field] = issue.message;
  }
  return errors as FieldErrors<T>;
}

/**
 * A small form state for Mantine inputs checked by a zod schema (the shared contracts): fields are checked
 * on submit, and once the form has been submitted, again on every change and whenever a field loses focus.
 */
export function useZodForm<S extends z.ZodType<unknown, Values>>(schema: S, initialValues: z.input<S>) {
  type In = z.input<S>;
  type Key = keyof In & string;
  const [values, setValues] = useState<In>(initialValues);
  const [errors, setErrors] = useState<FieldErrors<In>>({});
  const [submitted, setSubmitted] = useState(false);

  const validate = useCallback(
    (current: In): z.output<S> | undefined => {
      // SPEC §5: rules without a message of their own get the generic wording ("… is a required field").
      const result = schema.safeParse(current, { error: genericIssueMessage });
      setErrors(result.success ? {} : fieldErrors<In>(result.error));
      return result.success ? result.data : undefined;
    },
    [schema],
  );

  // Once submitted, errors follow each change. Validating only on blur would clear a message while the
  // pointer is on its way to the next control, shifting the layout under it so the click lands elsewhere.
  const setValue = <K extends Key>(field: K, value: In[K]) => {
    const next = { ...values, [field]: value };
    setValues(next);
    if (submitted) validate(next);
  };

  const onBlur = () => {
    if (submitted) validate(values);
  };

  /** Props for TextInput / PasswordInput. */
  const inputProps = (field: Key) => ({
    name: field,
    value: String(values[field] ?? ''),
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValue(field, event.currentTarget.value as In[Key]),
    onBlur,
    error: errors[field],
    // Mantine's PasswordInput does not mark its inner input itself.
    'aria-invalid': errors[field] ? true : undefined,
  });

  /** Props for Checkbox. */
  const checkboxProps = (field: Key) => ({
    name: field,
    checked: values[field] === true,
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValue(field, event.currentTarget.checked as In[Key]),
    onBlur,
    error: errors[field],
    'aria-invalid': errors[field] ? true : undefined,
  });

  /** Wraps a submit handler: it runs only with valid, parsed values. */
  const onSubmit = (handler: (data: z.output<S>) => unknown) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const data = validate(values);
    if (data !== undefined) void handler(data);
  };

  return { values, errors, setValue, setErrors, inputProps, checkboxProps, onSubmit, submitted };
}
