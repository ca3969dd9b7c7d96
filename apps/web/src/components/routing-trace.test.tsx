import { MantineProvider } from '@mantine/core';
import type { TraceCandidate } from '@switchyard/contracts';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TRACE, TRACE_LINE } from '../test/routing-fixtures.ts';
import { candidateOutcome, formatDistance, ruleSentence, TraceView } from './routing-trace.tsx';

describe('routing trace in plain words', () => {
  it('says which rule matched, why the ones above did not, and each location with its stock, distance and fate', () => {
    render(
      <MantineProvider env="test">
        <TraceView trace={TRACE} />
      </MantineProvider>,
    );
    expect(screen.getByText('One shipment from Downtown Store by rule Nearest, never split.')).toBeInTheDocument();
    expect(
      screen.getByText(/Postal code 97205 placed at Portland, OR\. · 1 shipment · by rules version 2/),
    ).toBeInTheDocument();

    const section = screen.getByRole('region', { name: 'Routing of MUG-1 × 2' });
    expect(within(section).getByText('Placed')).toBeInTheDocument();
    expect(within(section).getByText(TRACE_LINE.explanation)).toBeInTheDocument();
    const rules = within(section).getByRole('list', { name: 'Rules for MUG-1 × 2' });
    expect(
      within(rules)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Seattle only did not apply: The destination region is OR, not WA.', 'Nearest, never split applied.']);

    // In the order the rule tried them; a location set aside before ranking (disabled) comes last.
    const table = within(section).getByRole('table', { name: 'Locations for MUG-1 × 2' });
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Downtown Store', '12', '1.2 km', 'Chosen: 2 units', 'The nearest with 2 available: chosen.'],
      ['Warehouse', '0', '7.4 km', 'No stock', 'Has 0 available, 2 needed.'],
      ['Seattle Store', '30', '234 km', 'Disabled', 'Seattle Store is disabled.'],
    ]);
  });

  it('reads a line nobody could cover, and unknown distances', () => {
    render(
      <MantineProvider env="test">
        <TraceView
          trace={{
            ...TRACE,
            ruleSetVersion: 0,
            shipments: 0,
            lines: [
              {
                ...TRACE_LINE,
                outcome: 'unplaced',
                chosen: [],
                unplaced: 2,
                candidates: TRACE_LINE.candidates.map((c) => ({
                  ...c,
                  taken: 0,
                  distanceKm: null,
                  rejected: 'no_stock',
                })),
                explanation: 'No location has 2 units of MUG-1.',
              },
            ],
          }}
        />
      </MantineProvider>,
    );
    expect(screen.getByText('Not placed')).toBeInTheDocument();
    expect(screen.getByText('2 units could not be placed.')).toBeInTheDocument();
    expect(screen.getAllByText('distance unknown')).toHaveLength(3);
    expect(screen.getByText(/0 shipments · by the built-in default rules/)).toBeInTheDocument();
  });

  it('words each part on its own', () => {
    const [warehouse, chosen] = TRACE_LINE.candidates as [TraceCandidate, TraceCandidate];
    expect(formatDistance(0.44)).toBe('0.4 km');
    expect(formatDistance(1234.6)).toBe(`${(1235).toLocaleString()} km`);
    expect(ruleSentence({ ruleId: 'r', name: 'Only WA', matched: false, failed: [] })).toBe('Only WA did not apply.');
    expect(candidateOutcome({ ...chosen, taken: 1 })).toBe('Chosen: 1 unit');
    expect(candidateOutcome({ ...warehouse, rejected: 'hold_back' })).toBe('Holding back its last units');
    expect(candidateOutcome({ ...warehouse, rejected: null })).toBe('Not used');
  });
});
