import type { MouseEvent, ReactNode } from 'react';
import { toast } from 'sonner';

export type ToastType = 'success' | 'info' | 'warning' | 'error' | 'loading';

export interface ToastAction {
  label: string;
  /** Call `event.preventDefault()` to keep the toast open after the click. */
  onClick: (event: MouseEvent<HTMLButtonElement>) => void;
}

/** The toast of SPEC §3: id, title, description, type, duration, dismissible, action with a label. */
export interface ToastInput {
  id?: string;
  title: ReactNode;
  description?: ReactNode;
  type?: ToastType;
  /** Milliseconds; `Infinity` never auto-closes. The toaster's default (3 s) applies when left out. */
  duration?: number;
  /** False hides the close button and ignores swipes, so only the app can remove the toast. */
  dismissible?: boolean;
  action?: ToastAction;
}

export function showToast({ type = 'info', title, dismissible = true, ...options }: ToastInput): string | number {
  return toast[type](title, { ...options, dismissible, ...(dismissible ? {} : { closeButton: false }) });
}

export function dismissToast(id?: string): void {
  toast.dismiss(id);
}

type Shortcut = (title: ReactNode, options?: Omit<ToastInput, 'title' | 'type'>) => string | number;

function shortcut(type: ToastType): Shortcut {
  return (title, options) => showToast({ ...options, title, type });
}

export const notify = {
  success: shortcut('success'),
  info: shortcut('info'),
  warning: shortcut('warning'),
  error: shortcut('error'),
  loading: shortcut('loading'),
  dismiss: dismissToast,
};
