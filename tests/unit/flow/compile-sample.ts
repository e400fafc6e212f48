import * as v from 'valibot';
import { type Flow, FlowSchema } from '../../../src/api/contract/agent/flow';

/**
 * A flow with every node type, both kinds of global node (returning and not), an expression split with
 * an else edge, expression and always edges on a non-split node, and result edges on a function and a
 * transfer node.
 */
export const everyKindFlow = (): Flow =>
  v.parse(FlowSchema, {
    start_node_id: 'greet',
    global_prompt: 'You are the receptionist.',
    nodes: [
      {
        id: 'greet',
        type: 'conversation',
        name: 'Greeting',
        instruction: { type: 'prompt', text: 'Ask how you can help.' },
        edges: [{ id: 'p1', to: 'ask', condition: { type: 'prompt', prompt: 'The caller wants an appointment' } }],
      },
      {
        id: 'ask',
        type: 'extract',
        name: 'Age and insurance',
        variables: [
          { name: 'age', type: 'number', description: 'Age' },
          { name: 'insurance', type: 'enum', choices: ['none', 'private', 'public'] },
          { name: 'born', type: 'date' },
          { name: 'verified', type: 'boolean' },
          { name: 'caller', type: 'text' },
        ],
        edges: [{ id: 'a1', to: 'split', condition: { type: 'always' } }],
      },
      {
        id: 'split',
        type: 'logic_split',
        name: 'Who pays?',
        edges: [
          { id: 's1', to: 'senior', condition: { type: 'expression', expression: 'age >= 65 && insurance != "none"' } },
          { id: 's3', to: 'book', condition: { type: 'else' } },
          { id: 's2', to: 'digits', condition: { type: 'expression', expression: 'insurance == "none"' } },
        ],
      },
      {
        id: 'senior',
        type: 'conversation',
        name: 'Senior',
        instruction: { type: 'static_text', text: 'We have a senior desk.' },
        edges: [
          { id: 'x2', to: 'book', condition: { type: 'always' } },
          { id: 'x1', to: 'human', condition: { type: 'expression', expression: 'age >= 90' } },
        ],
      },
      {
        id: 'book',
        type: 'function',
        name: 'Book',
        function: 'book_appointment_cal',
        edges: [
          { id: 'r1', to: 'bye', condition: { type: 'result', ok: true } },
          { id: 'r2', to: 'human', condition: { type: 'result', ok: false } },
        ],
      },
      {
        id: 'digits',
        type: 'press_digit',
        name: 'Billing line',
        digits: '1#',
        edges: [{ id: 'd1', to: 'bye', condition: { type: 'always' } }],
      },
      {
        id: 'human',
        type: 'transfer',
        name: 'Human',
        number: '+14155550100',
        global: { condition: { type: 'prompt', prompt: 'The caller asks for a person' }, return: 'end' },
        edges: [{ id: 't1', to: 'greet', condition: { type: 'result', ok: false } }],
      },
      {
        id: 'emergency',
        type: 'conversation',
        name: 'Emergency',
        instruction: { type: 'static_text', text: 'Please hang up and call 911.' },
        global: { condition: { type: 'prompt', prompt: 'The caller has a medical emergency' } },
      },
      { id: 'bye', type: 'end', name: 'Goodbye', instruction: { type: 'static_text', text: 'Goodbye!' } },
    ],
  });
