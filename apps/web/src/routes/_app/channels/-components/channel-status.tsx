import { Badge } from '@mantine/core';
import type { ChannelStatus } from '@switchyard/contracts';

export const CHANNEL_STATUS_INFO: Record<ChannelStatus, { label: string; color: string }> = {
  pending: { label: 'Not connected yet', color: 'gray' },
  connected: { label: 'Connected', color: 'teal' },
  error: { label: 'Needs attention', color: 'red' },
  disconnected: { label: 'Disconnected', color: 'orange' },
};

export function ChannelStatusBadge({ status }: { status: ChannelStatus }) {
  const info = CHANNEL_STATUS_INFO[status];
  return (
    <Badge color={info.color} variant="light" style={{ flexShrink: 0 }}>
      {info.label}
    </Badge>
  );
}
