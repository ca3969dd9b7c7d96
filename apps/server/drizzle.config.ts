import { defineConfig } from 'drizzle-kit';

// `npm run db:generate -- --name <what_changed>` writes a reviewed, committed SQL migration.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
  casing: 'snake_case',
});
