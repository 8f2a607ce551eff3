/** Which database the store runs on: SQLite under DATA_DIR, or PostgreSQL at DATABASE_URL. */
export type Dialect = 'sqlite' | 'postgres';
