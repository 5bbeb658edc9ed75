/** Wire schemas of an environment's webhook set and the actions its URLs call. */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common-schemas.js';

/** The three actions of an environment's webhook set, in URL form (`…/webhooks/webhook:<action>`). */
export const WEBHOOK_ACTIONS = ['rebuild', 'cleanRebuild', 'purgeCache'] as const;
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];

export const WebhooksSchema = Type.Object(
  {
    name: Type.String({ description: 'accounts/{account}/apps/{app}/environments/{environment}/webhooks' }),
    webhooks: Type.Array(
      Type.Object(
        {
          action: Type.Unsafe<WebhookAction>(
            Type.String({ enum: [...WEBHOOK_ACTIONS], description: 'What a POST to the URL does' }),
          ),
          url: Type.String({
            description:
              'Absolute URL on ATOLL_PUBLIC_URL, with its ?token=; POST to it with no body and no auth',
          }),
        },
        { title: 'Webhook' },
      ),
    ),
    createTime: Timestamp('When the current token was made (by create or regenerate)'),
  },
  { title: 'Webhooks' },
);
export type Webhooks = Static<typeof WebhooksSchema>;
