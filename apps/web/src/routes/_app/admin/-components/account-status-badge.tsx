import { Badge, Tooltip } from '@mantine/core';
import type { AccountStatus } from '@switchyard/contracts';
import { ACCOUNT_STATUS } from '../../../../lib/account-status.ts';

export function AccountStatusBadge({ status }: { status: AccountStatus }) {
  const info = ACCOUNT_STATUS[status];
  return (
    <Tooltip label={info.explanation} multiline w={260} withArrow>
      <Badge color={info.color} variant="light" tabIndex={0}>
        {info.label}
      </Badge>
    </Tooltip>
  );
}
