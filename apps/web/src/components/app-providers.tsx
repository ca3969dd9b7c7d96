import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import type { QueryClient } from '@tanstack/react-query';
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { TRPCProvider, type TrpcClient } from '../lib/trpc.ts';
import { colorSchemeManager, UI_DEFAULTS } from '../lib/ui-settings.ts';
import { theme } from '../theme.ts';
import { AppToaster } from './app-toaster.tsx';

export interface AppProvidersProps {
  queryClient: QueryClient;
  trpcClient: TrpcClient;
  /** Mantine's 'test' environment turns off transitions and portals. */
  env?: 'default' | 'test';
  children: ReactNode;
}

export function AppProviders({ queryClient, trpcClient, env = 'default', children }: AppProvidersProps) {
  return (
    <MantineProvider
      theme={theme}
      colorSchemeManager={colorSchemeManager}
      defaultColorScheme={UI_DEFAULTS.theme}
      env={env}
    >
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {children}
          <AppToaster />
        </TRPCProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
