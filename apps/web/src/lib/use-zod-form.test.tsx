import { act, renderHook } from '@testing-library/react';
import type { ChangeEvent, FormEvent } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { useZodForm } from './use-zod-form.ts';

const Schema = z
  .object({ password: z.string().min(10, 'Should be at least 10 characters long'), password2: z.string() })
  .refine((v) => v.password === v.password2, { path: ['password2'], message: 'Passwords do not match' });

const change = (value: string) => ({ currentTarget: { value } }) as ChangeEvent<HTMLInputElement>;
const submitEvent = () => ({ preventDefault: vi.fn() }) as unknown as FormEvent<HTMLFormElement>;

describe('useZodForm', () => {
  it('shows no errors before the first submit, even while typing', () => {
    const { result } = renderHook(() => useZodForm(Schema, { password: '', password2: '' }));
    act(() => result.current.inputProps('password').onChange(change('short')));
    expect(result.current.errors).toEqual({});
  });

  it('after a failed submit, clears an error as soon as the value is fixed, before any blur', () => {
    const handler = vi.fn();
    const { result } = renderHook(() => useZodForm(Schema, { password: 'long enough pw', password2: 'other' }));
    act(() => result.current.onSubmit(handler)(submitEvent()));
    expect(handler).not.toHaveBeenCalled();
    expect(result.current.errors).toEqual({ password2: 'Passwords do not match' });

    act(() => result.current.inputProps('password2').onChange(change('long enough pw')));
    expect(result.current.errors).toEqual({});

    act(() => result.current.onSubmit(handler)(submitEvent()));
    expect(handler).toHaveBeenCalledWith({ password: 'long enough pw', password2: 'long enough pw' });
  });
});
