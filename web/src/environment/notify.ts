/** The toasts of the Domains and Webhooks tabs. */
import { notifications, type NotificationData } from '@mantine/notifications';

/** Shows a toast whose close button has a name: Mantine's has none, which screen readers read as "button". */
export function notify(data: NotificationData): void {
  notifications.show({ ...data, closeButtonProps: { 'aria-label': 'Dismiss', ...data.closeButtonProps } });
}
