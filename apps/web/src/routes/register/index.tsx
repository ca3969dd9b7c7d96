import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { RegisterInput } from '@switchyard/contracts';
import { useMutation } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { AuthPage } from '../../components/auth-page.tsx';
import { api } from '../../lib/api.ts';
import { errorMessage } from '../../lib/errors.ts';
import { useZodForm } from '../../lib/use-zod-form.ts';

export const Route = createFileRoute('/register/')({
  component: RegisterPage,
});

const EMPTY: RegisterInput = {
  firstname: '',
  lastname: '',
  business: '',
  phone: '',
  email: '',
  password: '',
  password2: '',
  agreement: false,
};

function RegisterPage() {
  const navigate = useNavigate();
  const form = useZodForm(RegisterInput, EMPTY);

  const register = useMutation({
    mutationFn: (input: RegisterInput) => api.frontend.post<{ email: string }>('register/register', input),
    onSuccess: async (answer, input) => {
      await navigate({ to: '/confirmation', search: { email: answer?.email ?? input.email } });
    },
  });

  return (
    <AuthPage
      title="Create your account"
      description="Connect your sales channels and store locations in one back office."
      footer={
        <Text size="sm">
          Already have an account?{' '}
          <Anchor component={Link} to="/login">
            Sign in
          </Anchor>
        </Text>
      }
    >
      <form noValidate onSubmit={form.onSubmit((data) => register.mutate(data))} aria-label="Create your account">
        <Stack gap="md">
          {register.isError ? (
            <Alert color="red" variant="light" title="Could not create the account" role="alert">
              {errorMessage(register.error)}
            </Alert>
          ) : null}
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
            <TextInput label="First name" autoComplete="given-name" required {...form.inputProps('firstname')} />
            <TextInput label="Last name" autoComplete="family-name" required {...form.inputProps('lastname')} />
          </SimpleGrid>
          <TextInput label="Business name" autoComplete="organization" required {...form.inputProps('business')} />
          <TextInput label="Phone" type="tel" autoComplete="tel" required {...form.inputProps('phone')} />
          <TextInput label="E-mail address" type="email" autoComplete="email" required {...form.inputProps('email')} />
          <PasswordInput
            label="Password"
            description="At least 10 characters"
            autoComplete="new-password"
            required
            {...form.inputProps('password')}
          />
          <PasswordInput
            label="Repeat password"
            autoComplete="new-password"
            required
            {...form.inputProps('password2')}
          />
          <Checkbox
            {...form.checkboxProps('agreement')}
            label={
              <>
                I have read and agree to the{' '}
                <Anchor component={Link} to="/terms" target="_blank" inherit>
                  Terms &amp; Conditions
                </Anchor>
              </>
            }
          />
          <Group justify="flex-end">
            <Button type="submit" loading={register.isPending} fullWidth>
              Create account
            </Button>
          </Group>
        </Stack>
      </form>
    </AuthPage>
  );
}
