export function set(x: number): number {
  return x;
}

export function run(m: Map<string, number>): number {
  m.set("a", 1);
  return set(2);
}
