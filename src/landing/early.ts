/**
 * The first script of dashboard.html (sent for /dashboard, where a login lands; scripts/prerender.mjs): with
 * a held session, it asks for what the Agents page paints first (the account and the first page of agents,
 * DASHBOARD_EARLY_URLS) while the app downloads; the app's client takes the answers (src/api/early.ts).
 * Only for the default view: a URL with a query (search, sort, page) leaves every request to the app.
 */
import { DASHBOARD_EARLY_URLS, requestEarly } from '../api/early';
import { heldAccessToken } from '../session/keys';

const token = heldAccessToken();
if (token && !location.search) for (const url of DASHBOARD_EARLY_URLS) requestEarly(url, token);
