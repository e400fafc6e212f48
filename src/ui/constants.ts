/**
 * Constants the UI layer owns (src/ui imports nothing outside itself). The business constants of spec
 * section 9 that the server checks too live in src/api/contract; the toaster's in machines/toaster.machine.
 */

// Data tables
export const TABLE_DEFAULT_PAGE_SIZE = 10;
export const TABLE_PAGE_SIZE_OPTIONS = [5, 10, 20, 30, 40, 50] as const;
export const TABLE_FIRST_PAGE_INDEX = 0;
/** the pause after the last keystroke before a search box commits (tables, the assign-agent picker) */
export const TABLE_DEBOUNCE_MS = 300;

// Forms
export const CONTACT_TEXTAREA_ROWS = 4;

// Display formats (date-fns patterns)
export const DATE_PARAM_FORMAT = 'yyyy-MM-dd';
