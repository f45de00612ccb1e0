import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_41_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-41-0'
    return [line.qty * factor for line in cart.lines]


def step_41_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-41-1'
    return [line.qty * factor for line in cart.lines]


def step_41_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-41-2'
    return [line.qty * factor for line in cart.lines]


def step_41_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-41-3'
    return [line.qty * factor for line in cart.lines]

