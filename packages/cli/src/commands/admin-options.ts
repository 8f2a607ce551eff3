// The operator's command options, shared by admin.ts and admin-operator.ts (no import cycle).
export interface AdminOptions {
  email?: string;
  key?: string;
  deployment?: string;
  placement?: string;
  to?: string;
  from?: string;
  status?: string | boolean;
  json?: boolean;
  reason?: string;
  month?: string;
  positionals?: string[];
}
