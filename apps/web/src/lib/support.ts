export const SUPPORT_EMAIL = 'support@switchyard.app';
