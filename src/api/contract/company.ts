/**
 * Contract of the company calls. An account belongs to exactly one company, so:
 * - `GET /company/` answers the caller's own company as a list of one (query params are accepted and ignored);
 * - `POST /company/ {name}` updates the caller's company profile (there is no second company to create);
 * - `DELETE /company/:id {password}` deletes the caller's company (any other id answers 404) after checking
 *   the caller's password: every row of the company goes (accounts, sessions, agents, numbers, calls,
 *   providers, batches...), so every token of its accounts stops working.
 */
import * as v from 'valibot';
import { PASSWORD_MAX } from './account.js';
import { objectRequiring } from './required';

export const COMPANY_NAME_MAX = 100;

export const COMPANY_MESSAGES = {
  nameRequired: 'Company name is required',
  nameTooLong: `Company name must be at most ${COMPANY_NAME_MAX} characters`,
  passwordRequired: 'Password is required',
  passwordWrong: 'Password is incorrect',
  updated: 'Company updated.',
  deleted: 'Company deleted.',
  notFound: 'Company not found',
  settingsSaved: 'Settings saved.',
} as const;

export const CompanySchema = v.object({
  _id: v.string(),
  name: v.string(),
  createdAt: v.string(),
});
export type Company = v.InferOutput<typeof CompanySchema>;

/** POST /company/ */
export const UpdateCompanyBodySchema = objectRequiring(
  {
    name: v.pipe(
      v.string(COMPANY_MESSAGES.nameRequired),
      v.trim(),
      v.nonEmpty(COMPANY_MESSAGES.nameRequired),
      v.maxLength(COMPANY_NAME_MAX, COMPANY_MESSAGES.nameTooLong),
    ),
  },
  { name: COMPANY_MESSAGES.nameRequired },
);
export type UpdateCompanyBody = v.InferOutput<typeof UpdateCompanyBodySchema>;

/** DELETE /company/:id */
export const DeleteCompanyBodySchema = objectRequiring(
  {
    password: v.pipe(
      v.string(COMPANY_MESSAGES.passwordRequired),
      v.nonEmpty(COMPANY_MESSAGES.passwordRequired),
      v.maxLength(PASSWORD_MAX, COMPANY_MESSAGES.passwordWrong),
    ),
  },
  { password: COMPANY_MESSAGES.passwordRequired },
);
export type DeleteCompanyBody = v.InferOutput<typeof DeleteCompanyBodySchema>;

export const CompanyListResponseSchema = v.object({
  success: v.boolean(),
  data: v.object({ companies: v.array(CompanySchema), total: v.number() }),
});
export type CompanyListResponse = v.InferOutput<typeof CompanyListResponseSchema>;

export const CompanyUpdateResponseSchema = v.object({ success: v.boolean(), msg: v.string(), company: CompanySchema });
export type CompanyUpdateResponse = v.InferOutput<typeof CompanyUpdateResponseSchema>;

export const CompanyDeleteResponseSchema = v.object({ success: v.boolean(), msg: v.string() });
export type CompanyDeleteResponse = v.InferOutput<typeof CompanyDeleteResponseSchema>;

export const COMPANY_PATHS = {
  list: '/company/',
  update: '/company/',
  remove: (id: string) => `/company/${encodeURIComponent(id)}`,
} as const;
