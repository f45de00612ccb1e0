import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_42_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-42-0'
    return [line.qty * factor for line in cart.lines]


def step_42_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-42-1'
    return [line.qty * factor for line in cart.lines]


def step_42_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-42-2'
    return [line.qty * factor for line in cart.lines]


def step_42_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-42-3'
    return [line.qty * factor for line in cart.lines]

