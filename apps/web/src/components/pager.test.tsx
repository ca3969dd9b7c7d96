import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Pager } from './pager.tsx';

const renderPager = (props: Partial<Parameters<typeof Pager>[0]>) => {
  const onChange = vi.fn();
  render(
    <MantineProvider env="test">
      <Pager label="Orders" total={50} limit={25} offset={25} onChange={onChange} {...props} />
    </MantineProvider>,
  );
  return onChange;
};

describe('pager', () => {
  it('stops at the last page of an exact total', () => {
    renderPager({});
    expect(screen.getByText('26–50 of 50')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });

  it('shows a total the server stopped counting at as a lower bound, and keeps Next on', async () => {
    const onChange = renderPager({ total: 10_050, offset: 10_025, totalIsLowerBound: true });
    expect(screen.getByText('10026–10050 of 10,050+')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(onChange).toHaveBeenCalledWith(10_050);
  });
});
