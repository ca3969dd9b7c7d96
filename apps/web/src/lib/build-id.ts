/** The id of the build this bundle came from; the server compares it with the build it serves. */
export const BUILD_ID: string = import.meta.env.VITE_BUILD_ID ?? 'dev';
