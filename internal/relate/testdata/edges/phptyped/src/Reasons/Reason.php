<?php

namespace App\Reasons;

class Reason
{
    public function __construct()
    {
    }

    public function describe(): string
    {
        return "reason";
    }
}
