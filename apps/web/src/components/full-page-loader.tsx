import { Center, Loader } from '@mantine/core';

/** Shown while a route loads (router defaultPendingComponent). */
export function FullPageLoader() {
  return (
    <Center mih="100dvh" w="100%">
      <Loader role="status" aria-label="Loading" />
    </Center>
  );
}
