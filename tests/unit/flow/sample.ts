import type { FlowInput } from '../../../src/api/contract/agent/flow';

/** The example flow, made whole (every node reachable, every node with a way out). */
export const sampleFlow = (): FlowInput => ({
  start_node_id: 'greet',
  global_prompt: 'You are the receptionist of Harbor Clinic.',
  nodes: [
    {
      id: 'greet',
      type: 'conversation',
      name: 'Greeting',
      instruction: { type: 'prompt', text: 'Ask how you can help.' },
      edges: [
        { id: 'e1', to: 'age', condition: { type: 'prompt', prompt: 'The caller wants an appointment' } },
        { id: 'e2', to: 'bye', condition: { type: 'prompt', prompt: 'The caller has nothing else' } },
      ],
    },
    {
      id: 'age',
      type: 'extract',
      name: 'Age',
      variables: [{ name: 'age', type: 'number', description: "The caller's age" }],
      edges: [{ id: 'e3', to: 'split', condition: { type: 'always' } }],
    },
    {
      id: 'split',
      type: 'logic_split',
      name: 'Senior?',
      edges: [
        { id: 'e4', to: 'book', condition: { type: 'expression', expression: 'age >= 65' } },
        { id: 'e5', to: 'book', condition: { type: 'else' } },
      ],
    },
    {
      id: 'book',
      type: 'function',
      name: 'Book',
      function: 'book_appointment_cal',
      edges: [
        { id: 'e6', to: 'bye', condition: { type: 'result', ok: true } },
        { id: 'e7', to: 'human', condition: { type: 'result', ok: false } },
      ],
    },
    {
      id: 'human',
      type: 'transfer',
      name: 'Human',
      number: '+14155550100',
      mode: 'cold',
      global: { condition: { type: 'prompt', prompt: 'The caller asks for a person' } },
    },
    { id: 'bye', type: 'end', name: 'Goodbye', instruction: { type: 'static_text', text: 'Goodbye!' } },
  ],
});
