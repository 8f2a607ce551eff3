// Arithmetic by a small recursive-descent parser (never eval): + - * / % ^, parentheses,
// constants pi and e, and common functions.
import { oneStringArgument, ToolFailure, type Tool } from './tool.js';

const FUNCS: Record<string, (...a: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  ln: Math.log,
  log: Math.log10,
  log2: Math.log2,
  exp: Math.exp,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  pow: Math.pow,
};
const CONSTS: Record<string, number> = { pi: Math.PI, e: Math.E };

export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[a-z_][a-z0-9_]*|\*\*|[-+*/%^(),]|\S/gi) ?? [];
  if (expression.length > 500) throw new ToolFailure('Expression too long (500 characters at most).');
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (t?: string) => {
    const tok = tokens[pos];
    if (t !== undefined && tok !== t)
      throw new ToolFailure(`Expected "${t}" but found ${tok === undefined ? 'the end' : `"${tok}"`}.`);
    pos++;
    return tok!;
  };
  const expr = (): number => {
    let v = term();
    while (peek() === '+' || peek() === '-') v = take() === '+' ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take();
      const r = unary();
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number => {
    if (peek() === '-') {
      take();
      return -unary();
    }
    if (peek() === '+') {
      take();
      return unary();
    }
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === '^' || peek() === '**') {
      take();
      return base ** unary();
    }
    return base;
  };
  const atom = (): number => {
    const tok = take();
    if (tok === undefined) throw new ToolFailure('Unexpected end of expression.');
    if (tok === '(') {
      const v = expr();
      take(')');
      return v;
    }
    if (/^(\d|\.\d)/.test(tok)) return Number(tok);
    const name = tok.toLowerCase();
    if (name in CONSTS) return CONSTS[name]!;
    if (name in FUNCS) {
      take('(');
      const args = [expr()];
      while (peek() === ',') {
        take();
        args.push(expr());
      }
      take(')');
      return FUNCS[name]!(...args);
    }
    throw new ToolFailure(`Unknown symbol "${tok}".`);
  };
  const value = expr();
  if (pos < tokens.length) throw new ToolFailure(`Unexpected "${tokens[pos]}".`);
  if (!Number.isFinite(value)) throw new ToolFailure('The result is not a finite number (division by zero?).');
  return value;
}

export const calculatorTool: Tool = {
  name: 'calculator',
  emoji: '🧮',
  description:
    'Evaluates an arithmetic expression exactly: + - * / % ^, parentheses, pi, e, sqrt, abs, ln, log, sin, cos, tan, round, floor, ceil, min, max, pow.',
  parameters: oneStringArgument('expression', 'e.g. "(1.5 + 2) * sqrt(16)"'),
  label: (args) => `Calculating ${String(args.expression ?? '').slice(0, 60)}`,
  async run(args) {
    if (typeof args.expression !== 'string') throw new ToolFailure('Give the expression as a string.');
    const value = evaluate(args.expression);
    return JSON.stringify({ expression: args.expression, result: Number(value.toPrecision(15)) });
  },
};
