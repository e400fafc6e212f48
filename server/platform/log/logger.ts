export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Keys whose values are never written to a log line. */
const SECRET_KEY = /pass|token|secret|authorization|cookie|key|value/i;

export function redact(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return fields;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET_KEY.test(k) && k !== 'stack') out[k] = '[redacted]';
    else if (v instanceof Error) out[k] = { message: v.message, stack: v.stack };
    else out[k] = v;
  }
  return out;
}

export type LogSink = (line: string) => void;

/** JSON-lines logger. Fields whose names look secret are redacted. */
export function createLogger(level: LogLevel = 'info', sink: LogSink = (l) => process.stdout.write(`${l}\n`)): Logger {
  const min = order[level];
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < min) return;
    sink(JSON.stringify({ t: new Date().toISOString(), level: lvl, msg, ...redact(fields) }));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
