import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_113_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-113-0'
    return [line.qty * factor for line in cart.lines]


def step_113_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-113-1'
    return [line.qty * factor for line in cart.lines]


def step_113_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-113-2'
    return [line.qty * factor for line in cart.lines]


def step_113_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-113-3'
    return [line.qty * factor for line in cart.lines]

