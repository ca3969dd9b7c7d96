import { Alert, Button, Code, Stack } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { MESSAGES } from '@switchyard/contracts';
import { Component, type ErrorInfo, type ReactNode, useId } from 'react';
import { errorMessage } from '../lib/errors.ts';

/** "Something went wrong!" with the error's text behind a Show Error / Hide Error toggle. */
export function RenderErrorFallback({ error }: { error: unknown }) {
  const [shown, { toggle }] = useDisclosure(false);
  const detailsId = useId();
  return (
    <Alert color="red" variant="light" title={MESSAGES.renderError} role="alert">
      <Stack gap="sm" align="flex-start">
        <Button
          size="xs"
          variant="outline"
          color="red"
          aria-expanded={shown}
          aria-controls={detailsId}
          onClick={toggle}
        >
          {shown ? 'Hide Error' : 'Show Error'}
        </Button>
        {shown && (
          <Code block id={detailsId}>
            {errorMessage(error)}
          </Code>
        )}
      </Stack>
    </Alert>
  );
}

interface RenderErrorBoundaryProps {
  children: ReactNode;
  /** A change of this value (the pathname, say) clears the error, so navigating away recovers. */
  resetKey?: unknown;
  onError?: (error: unknown, info: ErrorInfo) => void;
}

interface RenderErrorBoundaryState {
  error: unknown;
  hasError: boolean;
  resetKey: unknown;
}

/** A React error boundary for layouts: a part that fails to render shows the fallback, the rest stays usable. */
export class RenderErrorBoundary extends Component<RenderErrorBoundaryProps, RenderErrorBoundaryState> {
  override state: RenderErrorBoundaryState = { error: undefined, hasError: false, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<RenderErrorBoundaryState> {
    return { error, hasError: true };
  }

  static getDerivedStateFromProps(
    props: RenderErrorBoundaryProps,
    state: RenderErrorBoundaryState,
  ): Partial<RenderErrorBoundaryState> | null {
    if (props.resetKey === state.resetKey) return null;
    return { error: undefined, hasError: false, resetKey: props.resetKey };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.props.onError?.(error, info);
  }

  override render() {
    return this.state.hasError ? <RenderErrorFallback error={this.state.error} /> : this.props.children;
  }
}
