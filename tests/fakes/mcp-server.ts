/**
 * An MCP server speaking the Streamable HTTP transport, built with the official SDK's server side
 * (@modelcontextprotocol/sdk: McpServer + StreamableHTTPServerTransport, stateful sessions with
 * Mcp-Session-Id), for the tests of server/voice/tools/mcp.
 *
 * Read: the MCP specification's "Transports" (Streamable HTTP: one endpoint, POST for JSON-RPC messages,
 * Mcp-Session-Id issued at initialize and required after, DELETE ends the session), "Server features /
 * Tools" (tools/list with cursor pagination: `nextCursor`; tools/call answering `content` parts and
 * `isError`), "Authorization" (a bearer token in the Authorization header on every request, 401 otherwise),
 * and the TypeScript SDK's README (server side). The tool handlers are the SDK's low-level ones on
 * McpServer's Server, so the list can be paginated (`pageSize` tools a page) and schemas given as raw JSON.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeServer, startFakeServer } from './server.js';

export interface FakeMcpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export const DEFAULT_MCP_TOOLS: FakeMcpTool[] = [
  {
    name: 'lookup_order',
    description: 'Finds an order by its number',
    inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    run: async (args) => ({ content: [{ type: 'text', text: `Order ${String(args.order)} ships on Friday.` }] }),
  },
  {
    name: 'cancel_order',
    description: 'Cancels an order',
    inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    run: async (args) => ({
      isError: true,
      content: [{ type: 'text', text: `Order ${String(args.order)} has already shipped.` }],
    }),
  },
  {
    name: 'store_hours',
    description: 'Opening hours',
    inputSchema: { type: 'object', properties: {} },
    run: async () => ({
      content: [
        { type: 'text', text: 'Mon-Fri 9-17.' },
        { type: 'text', text: 'Closed on weekends.' },
      ],
    }),
  },
  {
    name: 'slow_search',
    description: 'Searches slowly',
    inputSchema: { type: 'object', properties: {} },
    run: (_args, signal) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'done' }] }), 10_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new Error('cancelled'));
        });
      }),
  },
  {
    name: 'weird.name with spaces',
    description: 'A name that is not a valid LLM tool name',
    inputSchema: { type: 'object', properties: {} },
    run: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
  },
];

export class FakeMcpServer {
  token = 'mcp_secret_token';
  tools: FakeMcpTool[] = DEFAULT_MCP_TOOLS;
  /** tools in one page of tools/list */
  pageSize = 2;
  /** every HTTP request: method, session and whether its Authorization held */
  requests: { method: string; session: string | undefined; authorized: boolean }[] = [];
  /** JSON-RPC methods received (initialize, tools/list, tools/call ...) */
  methods: string[] = [];
  /** tools/call cancelled by the client (notifications/cancelled) */
  cancelled = 0;
  readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  /** sessions ended by the client's DELETE */
  ended = 0;

  private constructor(private readonly server: FakeServer) {}

  static async start(): Promise<FakeMcpServer> {
    let fake: FakeMcpServer | undefined;
    const server = await startFakeServer({ request: (req, res) => void fake?.handle(req, res) });
    fake = new FakeMcpServer(server);
    return fake;
  }

  /** the MCP endpoint */
  get url() {
    return `${this.server.url}/mcp`;
  }

  async close() {
    for (const t of this.sessions.values()) await t.close().catch(() => {});
    await this.server.close();
  }

  private newServer(): McpServer {
    const mcp = new McpServer({ name: 'fake-shop', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      this.methods.push('tools/list');
      const start = Number(request.params?.cursor ?? 0);
      const page = this.tools.slice(start, start + this.pageSize);
      const next = start + this.pageSize < this.tools.length ? String(start + this.pageSize) : undefined;
      return {
        tools: page.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
        ...(next ? { nextCursor: next } : {}),
      };
    });
    mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      this.methods.push('tools/call');
      const tool = this.tools.find((t) => t.name === request.params.name);
      if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool ${request.params.name}` }] };
      extra.signal.addEventListener('abort', () => this.cancelled++);
      return tool.run(request.params.arguments ?? {}, extra.signal);
    });
    mcp.server.oninitialized = () => this.methods.push('notifications/initialized');
    return mcp;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const session = req.headers['mcp-session-id'] as string | undefined;
    const authorized = req.headers.authorization === `Bearer ${this.token}`;
    this.requests.push({ method: req.method ?? '', session, authorized });
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return void res.writeHead(404).end();
    if (!authorized) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      return void res.end(JSON.stringify({ error: 'invalid_token' }));
    }
    if (session) {
      const transport = this.sessions.get(session);
      if (!transport) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown session"}');
      if (req.method === 'DELETE') this.ended++;
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return void res.writeHead(400).end();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await this.newServer().connect(transport);
    await transport.handleRequest(req, res);
  }
}
