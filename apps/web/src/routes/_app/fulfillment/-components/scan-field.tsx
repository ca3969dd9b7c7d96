import { Alert, TextInput } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';

export interface ScanOutcome {
  ok: boolean;
  message: string;
}

/**
 * Where a keyboard-wedge scanner types: focused when the page opens and again after each scan, a code confirmed
 * with Enter. The answer (a line picked, or a wrong item) is read out to screen readers and stays until the
 * next scan.
 */
export function ScanField({
  onScan,
  disabled = false,
  busy = false,
}: {
  onScan: (code: string) => Promise<ScanOutcome>;
  disabled?: boolean;
  busy?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [outcome, setOutcome] = useState<ScanOutcome | null>(null);
  useEffect(() => {
    if (!disabled) input.current?.focus();
  }, [disabled]);
  const submit = async () => {
    const value = code.trim();
    if (!value) {
      setOutcome({ ok: false, message: 'Scan a barcode or type a SKU first.' });
      return;
    }
    setCode('');
    try {
      setOutcome(await onScan(value));
    } catch (err) {
      setOutcome({ ok: false, message: err instanceof Error ? err.message : 'The scan did not go through.' });
    } finally {
      input.current?.focus();
    }
  };
  return (
    <>
      <TextInput
        ref={input}
        label="Scan an item"
        description="Scan its barcode, or type its SKU and press Enter."
        placeholder="Barcode or SKU"
        value={code}
        onChange={(event) => setCode(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            void submit();
          }
        }}
        disabled={disabled}
        autoComplete="off"
        spellCheck={false}
        rightSection={busy ? '…' : null}
        size="md"
        maw={420}
        data-autofocus
      />
      <div aria-live="assertive" role="status">
        {outcome ? (
          <Alert color={outcome.ok ? 'teal' : 'red'} variant={outcome.ok ? 'light' : 'filled'} maw={560} py="xs">
            {outcome.message}
          </Alert>
        ) : null}
      </div>
    </>
  );
}
