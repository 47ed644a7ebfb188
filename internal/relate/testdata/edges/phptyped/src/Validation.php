<?php

namespace App;

use App\Reasons\Reason as ValidationReason;

interface EmailValidation
{
    public function isValid(string $email): bool;

    public function getError(): string;
}

class RFCValidation implements EmailValidation
{
    public function isValid(string $email): bool
    {
        return $this->check($email);
    }

    public function getError(): string
    {
        return "";
    }

    private function check(string $email): bool
    {
        return strlen(trim($email)) > 0;
    }
}

class Parser
{
    public function parse(string $s): bool
    {
        return true;
    }
}

class EmailParser extends Parser
{
    public function parse(string $s): bool
    {
        return parent::parse($s);
    }
}

class EmailValidator
{
    public function isValid(string $email, EmailValidation $emailValidation): bool
    {
        $ok = $emailValidation->isValid($email);
        $err = $emailValidation->getError();
        return $ok && self::helper() && count(explode('@', $email)) == 2;
    }

    public function getError(): string
    {
        $reason = new ValidationReason();
        return $reason->describe();
    }

    private static function helper(): bool
    {
        return true;
    }
}
