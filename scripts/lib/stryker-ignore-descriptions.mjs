// A Stryker ignorer: no mutants in `description: ...` properties. A description documents a state or a
// transition for the statecharts (docs/statecharts); changing its words changes no behaviour, so such
// mutants could only survive and would hide the score of the code that matters. Stryker's own
// `excludedMutations: ['StringLiteral']` would also drop the string mutants of events, guards and
// payloads, which are behaviour.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** @param {any} path a Babel NodePath */
function shouldIgnore(path) {
  const node = path.node;
  if (
    node &&
    (node.type === 'ObjectProperty' || node.type === 'Property') &&
    !node.computed &&
    ((node.key.type === 'Identifier' && node.key.name === 'description') ||
      (node.key.type === 'StringLiteral' && node.key.value === 'description'))
  )
    return 'A description documents a state or transition; it has no behaviour to test.';
  return undefined;
}

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'transition-descriptions', { shouldIgnore })];
