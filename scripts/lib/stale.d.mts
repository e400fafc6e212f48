export const root: string;
export function newestSource(): number;
export function buildIsStale(): boolean;
