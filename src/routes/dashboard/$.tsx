import { createFileRoute, redirect } from '@tanstack/react-router';
import { noSearch } from '../-lib/search';

/** Any unknown /dashboard/... path goes back to the agents list. */
export const Route = createFileRoute('/dashboard/$')({
  validateSearch: noSearch,
  beforeLoad: () => {
    throw redirect({ to: '/dashboard', replace: true });
  },
});
