/**
 * Wire schemas of builds and their list: they validate requests, type the client and make the Swagger
 * document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common-schemas.js';

export const BuildSchema = Type.Object(
  {
    name: Type.String({
      description: 'accounts/{account}/apps/{app}/environments/{environment}/builds/{build}',
    }),
    state: Type.String({
      description: 'QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED (STATE_UNSPECIFIED is the zero value)',
    }),
    phase: Type.String({
      description:
        'While running: UNPACKING, INSTALLING, BUILDING, PACKAGING or DEPLOYING; otherwise PHASE_UNSPECIFIED',
    }),
    trigger: Type.String({
      description:
        'UPLOAD, REBUILD, CLEAN_REBUILD, REDEPLOY, PUSH (a branch head: a push, polling, a new environment) or PULL_REQUEST (a preview)',
    }),
    createTime: Timestamp('When the build was created (queued)'),
    startTime: Type.Optional(Timestamp('When a worker started it')),
    finishTime: Type.Optional(Timestamp('When it finished; absent while queued or running')),
    branch: Type.String(),
    commitSha: Type.String({
      description: 'The commit built (40 hex), once fetched; empty for uploads',
    }),
    commitMessage: Type.String({ description: "The first line of the commit's message; empty for uploads" }),
    commitAuthor: Type.String({ description: 'The commit\'s author, "Name <email>"; empty for uploads' }),
    archived: Type.Boolean({ description: 'True once its artifact has been removed' }),
    sourceDigest: Type.String({ description: 'sha256:<hex> of the uploaded archive' }),
    sourceBytes: Type.Integer({ description: 'Size of the uploaded archive in bytes' }),
    artifactDigest: Type.String({ description: 'sha256:<hex> of the built artifact; empty until built' }),
    framework: Type.String({ description: 'Detected framework; empty until detected' }),
    nodeVersion: Type.String({
      description:
        'Node.js version a server app runs on (e.g. 22.11.0); empty for static sites and until built',
    }),
    failureReason: Type.Optional(
      Type.Object(
        {
          message: Type.String(),
          exitCode: Type.Optional(
            Type.Integer({ description: 'Exit code of the failing command, when one failed' }),
          ),
        },
        { description: 'Why the build failed or was cancelled' },
      ),
    ),
    live: Type.Boolean({ description: 'True for the build that serves traffic' }),
  },
  { title: 'Build' },
);
export type Build = Static<typeof BuildSchema>;

export const ListBuildsQuerySchema = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, description: 'Default 10, at most 200' })),
  pageToken: Type.Optional(Type.String()),
  orderBy: Type.Optional(
    Type.String({ description: '"createTime desc" (default, newest first) or "createTime"' }),
  ),
  startTime: Type.Optional(
    Type.String({ description: 'Only builds created at or after this RFC 3339 time' }),
  ),
  endTime: Type.Optional(Type.String({ description: 'Only builds created before this RFC 3339 time' })),
});
export type ListBuildsQuery = Static<typeof ListBuildsQuerySchema>;

export const ListBuildsResponseSchema = Type.Object(
  { builds: Type.Array(BuildSchema), nextPageToken: Type.String() },
  { title: 'ListBuildsResponse' },
);
export type ListBuildsResponse = Static<typeof ListBuildsResponseSchema>;
