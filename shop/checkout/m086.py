import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_86_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-86-0'
    return [line.qty * factor for line in cart.lines]


def step_86_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-86-1'
    return [line.qty * factor for line in cart.lines]


def step_86_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-86-2'
    return [line.qty * factor for line in cart.lines]


def step_86_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-86-3'
    return [line.qty * factor for line in cart.lines]

