/**
 * Spec section 9: provider page sizes. Their own module, without the rest of the provider contract: the
 * providers route's search schema uses them, and route search schemas ship in the entry chunk.
 */
export const PROVIDER_PAGE_SIZES = [9, 12, 15] as const;
export const PROVIDER_DEFAULT_PAGE_SIZE = 9;
