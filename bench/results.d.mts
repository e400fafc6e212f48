export const QUICK: boolean;
export const RESULTS_FILE: string;
export interface BenchResults {
  generatedAt: string | null;
  sections: Record<string, unknown>;
}
export function readResults(file?: string): BenchResults;
export function writeSection(name: string, data: unknown, options?: { file?: string; now?: Date }): BenchResults;
