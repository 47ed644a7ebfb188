import { Pool } from "pg";
import * as fs from "fs";
import type { User } from "./models";

export interface Repository<T> extends Closeable {
  findById(id: number): Promise<T | undefined>;
}

export type UserId = number;

export enum Role {
  Admin = "admin",
  User = "user",
}

/** Postgres-backed user repository. */
@Injectable()
export class UserRepository extends BaseRepository implements Repository<User>, Disposable {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    super();
    this.pool = pool;
  }

  async findById(id: number): Promise<User | undefined> {
    const rows = await this.pool.query("SELECT * FROM users WHERE id = $1", [id]);
    return rows.map(toUser)[0];
  }

  get size(): number {
    return this.cache.size;
  }
}

export abstract class BaseRepository {
  abstract close(): void;
}

export function toUser(row: Record<string, unknown>): User {
  return { id: Number(row.id), name: String(row.name) };
}

export const loadFixtures = async (file: string): Promise<User[]> =>
  JSON.parse(await fs.promises.readFile(file, "utf8"));

Repo.prototype.count = function count(): number {
  return this.items.length;
};

export const $ZodCheckMinLength = core.$constructor("$ZodCheckMinLength", (inst, def) => {
  inst.check = (payload) => payload.length >= def.minimum;
});

const handler = wrap(async (req, res) => {
  res.send(await load(req.id));
});
