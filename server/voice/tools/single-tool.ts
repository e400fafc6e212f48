import type { AgentFunction } from '@contract/agent/functions.js';
import type { PreparedTool } from './types.js';

/**
 * The one tool a function offers, named after it: the company's own description first (when it wrote one),
 * then what the tool does in Parley's words, so the model knows both.
 */
export function singleTool(
  fn: AgentFunction,
  description: string,
  parameters: Record<string, unknown>,
  run: PreparedTool['run'],
): PreparedTool[] {
  return [
    {
      spec: { name: fn.name, description: fn.description ? `${fn.description}\n${description}` : description, parameters },
      fn,
      run,
    },
  ];
}
