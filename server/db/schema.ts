/**
 * Typed tables. Timestamps are ISO-8601 strings (UTC) and booleans are 0/1 integers so the same
 * queries run on SQLite and PostgreSQL. JSON documents are stored as text.
 */
export interface CompaniesTable {
  id: string;
  name: string;
  created_at: string;
}

export interface AccountsTable {
  id: string;
  company_id: string;
  name: string;
  email: string;
  password_hash: string;
  photo: string | null;
  created_at: string;
  updated_at: string;
}

export interface DB {
  companies: CompaniesTable;
  accounts: AccountsTable;
}
