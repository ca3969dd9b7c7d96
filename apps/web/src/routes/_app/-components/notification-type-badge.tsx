import { Badge } from '@mantine/core';
import type { NotificationType } from '@switchyard/contracts';
import { NOTIFICATION_TYPE_LABELS } from '@switchyard/contracts';
import { NOTIFICATION_COLORS } from '../../../lib/notifications.ts';

/**
 * What kind of notification it is: its colour as a dot, its name in the text colour, so the label reads in both
 * colour modes (a tinted badge put 9 px yellow text on pale yellow).
 */
export function NotificationTypeBadge({ type }: { type: NotificationType }) {
  return (
    <Badge size="sm" variant="dot" color={NOTIFICATION_COLORS[type]} tt="none" fw={500}>
      {NOTIFICATION_TYPE_LABELS[type]}
    </Badge>
  );
}
