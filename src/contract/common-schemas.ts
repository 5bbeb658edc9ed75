/** Wire shapes every resource shares: the Status error, the empty body, the page query and timestamps. */
import { Type, type Static } from '@sinclair/typebox';

/** google.rpc.Status: the one error shape of the hosting API. */
export const StatusSchema = Type.Object(
  {
    code: Type.Integer({ description: 'gRPC canonical code (google.rpc.Code)' }),
    message: Type.String({
      description: 'What went wrong, naming the field and the rule where there is one',
    }),
    details: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description:
        'google.rpc.ErrorInfo (reason = the catalogue code of docs/errors.md) and, for bad fields, google.rpc.BadRequest',
    }),
  },
  { title: 'Status' },
);
export type Status = Static<typeof StatusSchema>;

export const EmptySchema = Type.Object({}, { title: 'Empty', additionalProperties: false });

/** The body of a method that reads none: no body, or `{}` (AIP-136 custom methods); anything else is refused. */
export const NoBodySchema = Type.Object(
  {},
  { title: 'NoBody', additionalProperties: false, description: 'No body, or {}: this method reads none' },
);

export const PageQuerySchema = Type.Object({
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 200,
      description: 'Items per page; 0 or absent means the default of the list',
    }),
  ),
  pageToken: Type.Optional(Type.String({ description: 'nextPageToken of the previous page' })),
});
export type PageQuery = Static<typeof PageQuerySchema>;

export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
