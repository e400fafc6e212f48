/** Business constants of spec section 9 that the UI layer owns. Import them; never repeat the numbers. */

// Toasts
export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY = 1_000_000;
export const TOAST_DEFAULT_DURATION = 5000;

// Dialogs
export const FORGOT_PASSWORD_RESET_DELAY = 300;

// Data tables
export const TABLE_DEFAULT_PAGE_SIZE = 10;
export const TABLE_PAGE_SIZE_OPTIONS = [5, 10, 20, 30, 40, 50] as const;
export const TABLE_FIRST_PAGE_INDEX = 0;
export const TABLE_DEBOUNCE_MS = 300;

// Providers grid
export const PROVIDER_PAGE_SIZE_OPTIONS = [9, 12, 15] as const;
export const PROVIDER_DEFAULT_PAGE_SIZE = 9;
export const PROVIDER_SEARCH_DEBOUNCE_MS = 300;

// Forms
export const PASSWORD_MIN_LENGTH = 6;
export const NAME_MIN_LENGTH = 2;
export const PHONE_NUMBER_MIN_LENGTH = 10;
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const CONTACT_TEXTAREA_ROWS = 4;

// Batch calls
export const BATCH_CSV_MAX_BYTES = 50 * 1024 * 1024;
export const BATCH_COST_PER_DIAL = 0.005;

// Query cache
export const QUERY_RETRIES_BEFORE_HYDRATION = 1;
export const QUERY_RETRIES_AFTER_HYDRATION = 0;
export const QUERY_CACHE_TIME_MS = 60_000;

// Browser storage
export const SESSION_STORAGE_KEY = 'auth-store';
export const LOCAL_DB_NAME = 'myDatabase';
export const LOCAL_DB_VERSION = 1;
export const LOCAL_DB_STORE = 'myStore';

// Display formats (date-fns patterns)
export const DATE_TIME_FORMAT = 'yyyy-MM-dd HH:mm';
export const DATE_PARAM_FORMAT = 'yyyy-MM-dd';

// Agents
export const AGENT_DEFAULT_COST_PER_MIN = 0.081;
export const AGENT_DEFAULT_LATENCY = '1150-1400ms';
export const AGENT_DEFAULT_DISPLAY_NAME = 'Single-Prompt Agent';
