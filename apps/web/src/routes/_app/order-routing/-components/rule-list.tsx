import {
  closestCenter,
  DndContext,
  type DragEndEvent,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import {
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { ActionIcon, Badge, Button, Card, Group, Stack, Text, Tooltip } from '@mantine/core';
import type { RoutingRule } from '@switchyard/contracts';
import { useRef } from 'react';
import { moveRule } from './rule-draft.ts';
import { describeRule, type RuleNames } from './rule-words.ts';

export interface RuleListProps {
  rules: readonly RoutingRule[];
  names: RuleNames;
  onReorder: (rules: RoutingRule[]) => void;
  onEdit: (index: number) => void;
  onDelete: (index: number) => void;
}

/**
 * The rules in the order they are tried. Reordered by dragging a row's handle (with the pointer, or with the
 * keyboard: focus the handle, Space, arrows, Space), or with each row's Move up / Move down buttons. The
 * default rule stays last: it has no handle and nothing can be moved below it.
 */
export function RuleList({ rules, names, onReorder, onEdit, onDelete }: RuleListProps) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const movable = rules.filter((r) => !r.isDefault).map((r) => r.id);
  const nameOf = (id: string | number) => rules.find((r) => r.id === id)?.name ?? String(id);
  const positionOf = (id: string | number) => rules.findIndex((r) => r.id === id) + 1;

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    const from = rules.findIndex((r) => r.id === active.id);
    const to = rules.findIndex((r) => r.id === over.id);
    onReorder(moveRule(rules, from, to));
  }

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{
        screenReaderInstructions: {
          draggable:
            'To move a rule, press Space or Enter. Use the up and down arrows to move it, Space or Enter to drop it, Escape to cancel.',
        },
        announcements: {
          onDragStart: ({ active }) => `Picked up rule ${nameOf(active.id)}, position ${positionOf(active.id)}.`,
          onDragOver: ({ active, over }) =>
            over ? `Rule ${nameOf(active.id)} is over position ${positionOf(over.id)}.` : undefined,
          onDragEnd: ({ active, over }) =>
            over
              ? `Rule ${nameOf(active.id)} dropped at position ${positionOf(over.id)}.`
              : `Rule ${nameOf(active.id)} dropped.`,
          onDragCancel: ({ active }) => `Moving rule ${nameOf(active.id)} was cancelled.`,
        },
      }}
    >
      <SortableContext items={movable} strategy={verticalListSortingStrategy}>
        <Stack gap="xs" component="ol" aria-label="Routing rules" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {rules.map((rule, index) => (
            <RuleRow
              key={rule.id}
              rule={rule}
              position={index + 1}
              names={names}
              canMoveUp={!rule.isDefault && index > 0}
              canMoveDown={!rule.isDefault && index < rules.length - 1 && !rules[index + 1]?.isDefault}
              onMove={(by) => onReorder(moveRule(rules, index, index + by))}
              onEdit={() => onEdit(index)}
              onDelete={() => onDelete(index)}
            />
          ))}
        </Stack>
      </SortableContext>
    </DndContext>
  );
}

interface RuleRowProps {
  rule: RoutingRule;
  position: number;
  names: RuleNames;
  canMoveUp: boolean;
  canMoveDown: boolean;
  onMove: (by: -1 | 1) => void;
  onEdit: () => void;
  onDelete: () => void;
}

function RuleRow({ rule, position, names, canMoveUp, canMoveDown, onMove, onEdit, onDelete }: RuleRowProps) {
  const sortable = useSortable({ id: rule.id, disabled: rule.isDefault });
  const upRef = useRef<HTMLButtonElement>(null);
  const downRef = useRef<HTMLButtonElement>(null);
  const move = (by: -1 | 1) => {
    onMove(by);
    // Once the row has moved, a button now disabled (top or bottom) hands the keyboard focus to the other one.
    setTimeout(() => {
      const [same, other] = by === -1 ? [upRef.current, downRef.current] : [downRef.current, upRef.current];
      if (same?.disabled) other?.focus();
    }, 0);
  };
  const { when, how } = describeRule(rule, names);
  return (
    <li
      ref={sortable.setNodeRef}
      aria-label={`${position}. ${rule.name}`}
      style={{
        transform: CSS.Transform.toString(sortable.transform),
        transition: sortable.transition,
        position: 'relative',
        zIndex: sortable.isDragging ? 1 : undefined,
      }}
    >
      <Card withBorder padding="sm" radius="md" style={sortable.isDragging ? { opacity: 0.85 } : undefined}>
        <Group wrap="nowrap" align="flex-start" gap="sm">
          {rule.isDefault ? (
            <Tooltip label="The default rule is always last">
              <Text size="lg" c="dimmed" w={28} ta="center" aria-hidden>
                ⤓
              </Text>
            </Tooltip>
          ) : (
            <ActionIcon
              variant="subtle"
              color="gray"
              size="lg"
              aria-label={`Drag ${rule.name} to reorder`}
              style={{ cursor: 'grab', touchAction: 'none' }}
              {...sortable.attributes}
              {...sortable.listeners}
            >
              ⠿
            </ActionIcon>
          )}
          <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
            <Group gap="xs">
              <Text size="sm" c="dimmed" fw={600}>
                {position}.
              </Text>
              <Text fw={600}>{rule.name}</Text>
              {rule.isDefault ? (
                <Badge size="sm" variant="light" color="gray">
                  Default
                </Badge>
              ) : null}
              {rule.enabled ? null : (
                <Badge size="sm" variant="light" color="yellow">
                  Off
                </Badge>
              )}
            </Group>
            <Text size="sm">{when}</Text>
            <Text size="sm" c="dimmed">
              {how}
            </Text>
          </Stack>
          <Group gap={4} wrap="nowrap">
            {rule.isDefault ? null : (
              <>
                <ActionIcon
                  ref={upRef}
                  variant="default"
                  aria-label={`Move ${rule.name} up`}
                  disabled={!canMoveUp}
                  onClick={() => move(-1)}
                >
                  ↑
                </ActionIcon>
                <ActionIcon
                  ref={downRef}
                  variant="default"
                  aria-label={`Move ${rule.name} down`}
                  disabled={!canMoveDown}
                  onClick={() => move(1)}
                >
                  ↓
                </ActionIcon>
              </>
            )}
            <Button size="xs" variant="default" onClick={onEdit} aria-label={`Edit ${rule.name}`}>
              Edit
            </Button>
            {rule.isDefault ? null : (
              <Button size="xs" variant="subtle" color="red" onClick={onDelete} aria-label={`Delete ${rule.name}`}>
                Delete
              </Button>
            )}
          </Group>
        </Group>
      </Card>
    </li>
  );
}
