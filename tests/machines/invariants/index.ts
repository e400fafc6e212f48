/** Every machine's invariant table, by the name its model test gives (describeModel(name, ...)). */
import type { InvariantTable } from './types.js';
import agentEditor from './agentEditor.js';
import assignAgent from './assignAgent.js';
import authDialog from './authDialog.js';
import forgotPassword from './forgotPassword.js';
import providerConnection from './providerConnection.js';
import batchCall from './batchCall.js';
import session from './session.js';

export const invariantTables: Record<string, InvariantTable> = {
  agentEditor,
  assignAgent,
  authDialog,
  forgotPassword,
  providerConnection,
  batchCall,
  session,
};
