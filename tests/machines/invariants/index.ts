/** Every machine's invariant table, by the name its model test gives (describeModel(name, ...)). */

import agentDelete from './agentDelete.js';
import agentEditor from './agentEditor.js';
import agentImport from './agentImport.js';
import agentUpdate from './agentUpdate.js';
import assignAgent from './assignAgent.js';
import authDialog from './authDialog.js';
import batchCall from './batchCall.js';
import batchDetail from './batchDetail.js';
import batchRules from './batchRules.js';
import callFilters from './callFilters.js';
import callMe from './callMe.js';
import callSession from './callSession.js';
import contact from './contact.js';
import forgotPassword from './forgotPassword.js';
import knowledgeBaseUpload from './knowledgeBaseUpload.js';
import listQuery from './listQuery.js';
import numberImport from './numberImport.js';
import phoneNumberDelete from './phoneNumberDelete.js';
import phoneNumberUpdate from './phoneNumberUpdate.js';
import phoneRequest from './phoneRequest.js';
import providerConnection from './providerConnection.js';
import remoteList from './remoteList.js';
import resetPassword from './resetPassword.js';
import session from './session.js';
import settingsForm from './settingsForm.js';
import sidebar from './sidebar.js';
import testChat from './testChat.js';
import toaster from './toaster.js';
import type { InvariantTable } from './types.js';
import voicePreview from './voicePreview.js';
import webCall from './webCall.js';

export const invariantTables: Record<string, InvariantTable> = {
  numberImport,
  agentEditor,
  assignAgent,
  authDialog,
  forgotPassword,
  providerConnection,
  batchCall,
  session,
  callSession,
  settingsForm,
  batchDetail,
  batchRules,
  knowledgeBaseUpload,
  agentImport,
  phoneNumberUpdate,
  agentUpdate,
  phoneRequest,
  phoneNumberDelete,
  agentDelete,
  resetPassword,
  callFilters,
  callMe,
  contact,
  toaster,
  listQuery,
  remoteList,
  sidebar,
  testChat,
  voicePreview,
  webCall,
};
