import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { RenderErrorBoundary } from './render-error.tsx';

function Boom({ explode }: { explode: boolean }): string {
  if (explode) throw new Error('orders.map is not a function');
  return 'All good';
}

function renderInBoundary(explode: boolean, resetKey = 'a') {
  // React reports errors that a boundary caught through onCaughtError (console.error by default);
  // here the boundary is the subject, so the report is collected rather than printed.
  const onCaughtError = vi.fn();
  const view = render(
    <MantineProvider env="test">
      <RenderErrorBoundary resetKey={resetKey}>
        <Boom explode={explode} />
      </RenderErrorBoundary>
    </MantineProvider>,
    { onCaughtError },
  );
  const rerender = (nextExplode: boolean, nextKey: string) =>
    view.rerender(
      <MantineProvider env="test">
        <RenderErrorBoundary resetKey={nextKey}>
          <Boom explode={nextExplode} />
        </RenderErrorBoundary>
      </MantineProvider>,
    );
  return { onCaughtError, rerender };
}

describe('render error boundary', () => {
  it('shows "Something went wrong!" and toggles the error text', async () => {
    const { onCaughtError } = renderInBoundary(true);
    expect(screen.getByText('Something went wrong!')).toBeInTheDocument();
    expect(screen.queryByText('orders.map is not a function')).not.toBeInTheDocument();
    expect(onCaughtError).toHaveBeenCalledTimes(1);

    const toggle = screen.getByRole('button', { name: 'Show Error' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(toggle);
    expect(screen.getByText('orders.map is not a function')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Hide Error' })).toHaveAttribute('aria-expanded', 'true');

    await userEvent.click(screen.getByRole('button', { name: 'Hide Error' }));
    expect(screen.queryByText('orders.map is not a function')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Show Error' })).toBeInTheDocument();
  });

  it('renders its children when nothing fails', () => {
    renderInBoundary(false);
    expect(screen.getByText('All good')).toBeInTheDocument();
    expect(screen.queryByText('Something went wrong!')).not.toBeInTheDocument();
  });

  it('recovers when the reset key changes', () => {
    const { rerender } = renderInBoundary(true, '/orders');
    expect(screen.getByText('Something went wrong!')).toBeInTheDocument();
    rerender(false, '/dashboard');
    expect(screen.getByText('All good')).toBeInTheDocument();
  });
});
