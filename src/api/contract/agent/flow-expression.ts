/**
 * The expression language of a flow's conditions (`age >= 65`, `insurance == "none"`, `a && (b || c)`,
 * `!verified`): a small hand-written parser and evaluator, shared by the editor (validation as you type),
 * the server (validation on save) and the compiled flow machine (its guards). Nothing is ever run as code.
 *
 * Grammar (lowest precedence first):
 *
 *   or         := and ( '||' and )*
 *   and        := unary ( '&&' unary )*
 *   unary      := '!' unary | comparison
 *   comparison := primary ( ( '==' | '!=' | '<' | '<=' | '>' | '>=' ) primary )?
 *   primary    := number | string | 'true' | 'false' | variable | '(' or ')'
 *
 * Numbers: `65`, `-3`, `2.5`. Strings: double or single quotes, `\"`, `\'` and `\\` escapes. Variables:
 * letters, digits and `_`, starting with a letter or `_` (the names an Extract variables node declares).
 *
 * Meaning: `==` / `!=` compare values of the same type (a number never equals a string); `<`, `<=`, `>`,
 * `>=` hold only between two numbers or two texts (texts compare by code unit, so ISO dates `2026-05-01`
 * compare in date order); a variable that has no value yet equals nothing and orders with nothing; `!`,
 * `&&` and `||` read a value as true when it is `true`, a number other than 0, or a non-empty text.
 *
 * Bounds: at most EXPRESSION_MAX_LENGTH characters and EXPRESSION_MAX_DEPTH nested `!` or parentheses,
 * so a hostile expression costs at most a few thousand steps to parse or evaluate.
 */

export const EXPRESSION_MAX_LENGTH = 500;
export const EXPRESSION_MAX_DEPTH = 32;

export type ExpressionValue = string | number | boolean;
/** The variables an expression reads; a missing (or null) one has no value yet. */
export type ExpressionVariables = Readonly<Record<string, ExpressionValue | null | undefined>>;

export type ComparisonOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type Expression =
  | { kind: 'literal'; value: ExpressionValue }
  | { kind: 'variable'; name: string }
  | { kind: 'not'; operand: Expression }
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'compare'; op: ComparisonOp; left: Expression; right: Expression };

export type ExpressionParse =
  | { ok: true; expression: Expression; variables: string[] }
  | { ok: false; message: string; at: number };

export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Token =
  | { t: 'num'; value: number; at: number }
  | { t: 'str'; value: string; at: number }
  | { t: 'id'; value: string; at: number }
  | { t: 'op'; value: string; at: number }
  | { t: 'end'; at: number };

class ExpressionError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')'];
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isIdStart = (c: string | undefined) => c !== undefined && /[A-Za-z_]/.test(c);
const isIdPart = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const at = i;
    if (isDigit(c) || (c === '-' && isDigit(src[i + 1])) || (c === '.' && isDigit(src[i + 1]))) {
      let j = c === '-' ? i + 1 : i;
      while (isDigit(src[j])) j++;
      if (src[j] === '.') {
        j++;
        if (!isDigit(src[j])) throw new ExpressionError('A number cannot end with "."', j);
        while (isDigit(src[j])) j++;
      }
      if (isIdPart(src[j])) throw new ExpressionError('A number is followed by letters', j);
      tokens.push({ t: 'num', value: Number(src.slice(i, j)), at });
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      for (;;) {
        const d = src[j];
        if (d === undefined) throw new ExpressionError('A text is not closed', at);
        if (d === c) break;
        if (d === '\\') {
          const e = src[j + 1];
          if (e !== '\\' && e !== '"' && e !== "'") throw new ExpressionError('Unknown escape in a text', j);
          value += e;
          j += 2;
          continue;
        }
        value += d;
        j++;
      }
      tokens.push({ t: 'str', value, at });
      i = j + 1;
      continue;
    }
    if (isIdStart(c)) {
      let j = i + 1;
      while (isIdPart(src[j])) j++;
      tokens.push({ t: 'id', value: src.slice(i, j), at });
      i = j;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) {
      if (c === '=') throw new ExpressionError('Use == to compare', at);
      if (c === '&' || c === '|') throw new ExpressionError(`Use ${c}${c}`, at);
      throw new ExpressionError(`Unexpected character ${JSON.stringify(c)}`, at);
    }
    tokens.push({ t: 'op', value: op, at });
    i += op.length;
  }
  tokens.push({ t: 'end', at: src.length });
  return tokens;
}

const COMPARISONS: readonly string[] = ['==', '!=', '<', '<=', '>', '>='];

class Parser {
  private i = 0;
  private depth = 0;
  readonly variables = new Set<string>();
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private isOp(value: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.value === value;
  }
  private nest<T>(at: number, f: () => T): T {
    if (++this.depth > EXPRESSION_MAX_DEPTH) throw new ExpressionError('The expression is nested too deeply', at);
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  parse(): Expression {
    const e = this.or();
    const t = this.peek();
    if (t.t !== 'end') throw new ExpressionError('Unexpected text after the expression', t.at);
    return e;
  }
  private or(): Expression {
    let left = this.and();
    while (this.isOp('||')) {
      this.i++;
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }
  private and(): Expression {
    let left = this.unary();
    while (this.isOp('&&')) {
      this.i++;
      left = { kind: 'and', left, right: this.unary() };
    }
    return left;
  }
  private unary(): Expression {
    const t = this.peek();
    if (this.isOp('!')) {
      this.i++;
      return this.nest(t.at, () => ({ kind: 'not', operand: this.unary() }));
    }
    return this.comparison();
  }
  private comparison(): Expression {
    const left = this.primary();
    const t = this.peek();
    if (t.t === 'op' && COMPARISONS.includes(t.value)) {
      this.i++;
      const right = this.primary();
      const next = this.peek();
      if (next.t === 'op' && COMPARISONS.includes(next.value))
        throw new ExpressionError('Comparisons cannot be chained: join them with && or ||', next.at);
      return { kind: 'compare', op: t.value as ComparisonOp, left, right };
    }
    return left;
  }
  private primary(): Expression {
    const t = this.peek();
    this.i++;
    switch (t.t) {
      case 'num':
        return { kind: 'literal', value: t.value };
      case 'str':
        return { kind: 'literal', value: t.value };
      case 'id':
        if (t.value === 'true' || t.value === 'false') return { kind: 'literal', value: t.value === 'true' };
        this.variables.add(t.value);
        return { kind: 'variable', name: t.value };
      case 'op':
        if (t.value === '(') {
          const inner = this.nest(t.at, () => this.or());
          if (!this.isOp(')')) throw new ExpressionError('A "(" is not closed', t.at);
          this.i++;
          return inner;
        }
        throw new ExpressionError(`Expected a value before "${t.value}"`, t.at);
      case 'end':
        throw new ExpressionError('The expression ends too early', t.at);
    }
  }
}

/** Parses an expression: its tree and the variables it reads, or the first problem and where it is. */
export function parseExpression(src: string): ExpressionParse {
  if (typeof src !== 'string') return { ok: false, message: 'The expression must be a text', at: 0 };
  if (src.length > EXPRESSION_MAX_LENGTH)
    return { ok: false, message: `The expression is too long (at most ${EXPRESSION_MAX_LENGTH} characters)`, at: 0 };
  if (src.trim() === '') return { ok: false, message: 'The expression is empty', at: 0 };
  try {
    const parser = new Parser(tokenize(src));
    const expression = parser.parse();
    return { ok: true, expression, variables: [...parser.variables] };
  } catch (e) {
    if (e instanceof ExpressionError) return { ok: false, message: e.message, at: e.at };
    throw e;
  }
}

type Value = ExpressionValue | null;

const truthy = (x: Value): boolean => x === true || (typeof x === 'number' && x !== 0) || (typeof x === 'string' && x !== '');

function compare(op: ComparisonOp, a: Value, b: Value): boolean {
  if (op === '==') return a !== null && a === b;
  if (op === '!=') return !(a !== null && a === b);
  const bothNumbers = typeof a === 'number' && typeof b === 'number';
  const bothTexts = typeof a === 'string' && typeof b === 'string';
  if (!bothNumbers && !bothTexts) return false;
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

function value(e: Expression, vars: ExpressionVariables): Value {
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'variable': {
      const x = Object.hasOwn(vars, e.name) ? vars[e.name] : undefined;
      return typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? x : null;
    }
    case 'not':
      return !truthy(value(e.operand, vars));
    case 'and':
      return truthy(value(e.left, vars)) && truthy(value(e.right, vars));
    case 'or':
      return truthy(value(e.left, vars)) || truthy(value(e.right, vars));
    case 'compare':
      return compare(e.op, value(e.left, vars), value(e.right, vars));
  }
}

/** Whether a parsed expression holds for these variables. */
export function evaluateExpression(e: Expression, vars: ExpressionVariables): boolean {
  return truthy(value(e, vars));
}

/** Parses and evaluates in one step; an expression that does not parse never holds. */
export function expressionHolds(src: string, vars: ExpressionVariables): boolean {
  const parsed = parseExpression(src);
  return parsed.ok && evaluateExpression(parsed.expression, vars);
}
