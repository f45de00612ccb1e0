import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_0_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-0-0'
    return [line.qty * factor for line in cart.lines]


def step_0_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-0-1'
    return [line.qty * factor for line in cart.lines]


def step_0_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-0-2'
    return [line.qty * factor for line in cart.lines]


def step_0_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-0-3'
    return [line.qty * factor for line in cart.lines]

