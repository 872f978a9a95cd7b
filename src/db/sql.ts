import { createSqlTag } from 'slonik';
import { z } from 'zod';

/** The slonik tag with the aliases our queries use: `sql.typeAlias('void')` for statements returning no rows. */
export const sql = createSqlTag({
  typeAliases: {
    void: z.object({}).strict(),
  },
});
