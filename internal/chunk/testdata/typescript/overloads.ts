import { Observable } from 'rxjs';

/** Maps each value. */
export function switchMap<T, O>(project: (value: T) => O): O;
/** @deprecated use the other */
export function switchMap<T, R>(project: (value: T) => R, sel: undefined): R;
export function switchMap(project: any, sel?: any): any {
  return helper(project);
}

export type Mapper<T> = (v: T) => T;

export const pick = flag ? () => { return 1; } : (x: number) => { return x; };

export declare function declared(a: string): void;

export class Parser {
  parse(input: string): Node;
  parse(input: Buffer): Node;
  parse(input: string | Buffer): Node {
    return toNode(input);
  }
}
