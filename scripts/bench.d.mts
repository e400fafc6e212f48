export interface Size {
  raw: number;
  gzip: number;
}
export interface RouteWeight {
  chunks: string[];
  css: Size;
  file: string;
  firstLoad: { css: Size; files: string[]; js: Size };
  js: Size;
  kind: 'layout' | 'page';
  route: string;
}
export interface BundleAnalysis {
  entry: { css: Size; files: string[]; js: Size };
  routes: RouteWeight[];
}
export const BUDGETS: Record<string, number>;
/** raw and gzip (level 9) size of a file of dist/client */
export function sizeOf(file: string): Size;
export function analyseBundle(): BundleAnalysis;
