/**
 * The path parameters of every route, with the one rule they all keep, so that no route reads an id the
 * server has not checked.
 */
import { Type, type Static } from '@sinclair/typebox';

/**
 * The rule every path parameter of every route keeps (issue 20): the server checks it before
 * anything reads the value (authentication, tenancy, the store), and the Swagger document
 * shows it on each parameter.
 *
 * The longest id a resource can have is an email address (254, RFC 5321) or a domain (253,
 * RFC 1035); anything longer names nothing.
 */
export const PATH_ID_MAX_LENGTH = 255;

/**
 * No control characters (Unicode Cc: U+0000–U+001F, U+007F–U+009F): PostgreSQL cannot store
 * U+0000 in text, and the others break log lines and headers. No `/` or `:` either: they
 * separate the parts of resource names (`accounts/a/apps/b`) and custom verbs (`…:cancel`).
 */
export const PATH_ID_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f/:]+$';

/** A path parameter: 1 to 255 characters, none of them a control character, `/` or `:`. */
export function PathId(description: string) {
  return Type.String({
    minLength: 1,
    maxLength: PATH_ID_MAX_LENGTH,
    pattern: PATH_ID_PATTERN,
    description: `${description}; 1 to ${PATH_ID_MAX_LENGTH} characters, no control characters, "/" or ":"`,
  });
}

const account = PathId('The account name');
const app = PathId('The appId of the application');
const environment = PathId('The environment id (a UUID)');

export const AccountParamsSchema = Type.Object({ account });
export const AppParamsSchema = Type.Object({ account, app });
export const EnvironmentParamsSchema = Type.Object({ account, app, environment });
/** An app as its routes name it: a route's `request.params` is one, so services take it as it comes. */
export type AppRef = Static<typeof AppParamsSchema>;
/** An environment as its routes name it (every route under it has these params, and maybe one more). */
export type EnvironmentRef = Static<typeof EnvironmentParamsSchema>;
export const OperationParamsSchema = Type.Object({
  account,
  app,
  environment,
  operation: PathId('The operation id: the build id, or no_build'),
});
export const BuildParamsSchema = Type.Object({
  account,
  app,
  environment,
  build: PathId(
    'The build id: a UUID, or a short id (its first 8 or more characters, in any case) that starts exactly one build of the environment',
  ),
});
export const DomainMappingParamsSchema = Type.Object({
  account,
  app,
  environment,
  domain: PathId('The mapped domain, as the mapping shows it (or in any case / as an IDN)'),
});
export const MemberParamsSchema = Type.Object({ account, email: PathId("The member's email address") });
export const CredentialParamsSchema = Type.Object({ credential: PathId('The credential id (its userId)') });
export const EventSubscriptionParamsSchema = Type.Object({
  account,
  subscription: PathId('The subscription id (a UUID)'),
});
export const ReportScheduleParamsSchema = Type.Object({ schedule_id: PathId('The schedule id (a UUID)') });
export const SiteReportParamsSchema = Type.Object({ report_id: PathId('The report id (a UUID)') });
